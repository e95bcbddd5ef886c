// The CloudantOnly flavour: the core document store and sync.
@_exported public import CloudantCore
@_exported public import CloudantStore
@_exported public import CloudantSync
// DatabaseKey, for stores encrypted at rest (StoreOptions.encryptionKey).
@_exported public import CipherVFS
