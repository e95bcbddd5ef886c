internal import ArgumentParser
internal import CloudantOnly

extension DatabaseCommand {
    /// `cloudant db rekey --db NAME [--key-file OLD] [--new-key-file NEW]`: encrypt, rotate or decrypt a store.
    struct Rekey: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt a store, change its key, or decrypt it; prints {\"db\",\"encrypted\"}.",
            discussion: """
                The store's current key is --key-file (none: the store is plaintext); its new key is \
                --new-key-file (none: decrypt). The database and every attachment file are rewritten under \
                the new key and put in place atomically; a crash leaves a store that opens with one of the \
                two keys. Stop `cloudant serve` and every other user of the store first. A key file holds 32 \
                raw bytes or 64 hex digits: `head -c 32 /dev/urandom > store.key`.

                Examples:
                  cloudant db rekey --db patients --new-key-file ./patients.key
                  cloudant db rekey --db patients --key-file ./patients.key --new-key-file ./rotated.key
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption
        @Option(name: .customLong("new-key-file"), help: ArgumentHelp("The new key (omit to decrypt).", valueName: "FILE"))
        var newKeyFile: String?

        func execute() async throws {
            guard try global.stores.containsStore(database.db) else {
                throw CloudantError(.notFound, "Database does not exist.", context: .init(database: database.db))
            }
            let newKey = try newKeyFile.map(GlobalOptions.readKey(at:))
            try DocumentStore.changeEncryptionKey(
                ofStoreAt: try global.stores.fileURL(forStore: database.db), from: try global.encryptionKey(), to: newKey)
            Output.print(["db": .string(database.db), "encrypted": .bool(newKey != nil)])
        }
    }
}
