public import CloudantStore

extension StoreOptions {
    /// The default options, encrypted at rest with a fresh random key when `encrypted`: for a test that runs
    /// over both kinds of store.
    ///
    /// ```swift
    /// @Test(arguments: [false, true])
    /// func survivesARestart(encrypted: Bool) async throws {
    ///     let temp = try TemporaryStore(options: .encrypted(encrypted))
    /// ```
    public static func encrypted(_ encrypted: Bool) -> StoreOptions {
        var options = StoreOptions()
        if encrypted { options.encryptionKey = DatabaseKey.random() }
        return options
    }
}
