// The CloudantOnly flavour: the core document store and sync.
@_exported public import CloudantCore
@_exported public import CloudantStore
@_exported public import CloudantSync
