public import CloudantStore

extension StoreOptions {
    /// The default options, encrypted at rest with a fresh random key when `encrypted`: for a test that takes
    /// both kinds of store as its arguments (`false`, `true`) and opens
    /// `TemporaryStore(options: .encrypted(encrypted))`.
    public static func encrypted(_ encrypted: Bool) -> StoreOptions {
        var options = StoreOptions()
        if encrypted { options.encryptionKey = DatabaseKey.random() }
        return options
    }
}
