internal import ArgumentParser
internal import CloudantOnly

extension DatabaseCommand {
    /// `cloudant db expiry --db NAME [--field F | --off] [--purge]`: document expiry (time to live).
    struct Expiry: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set the member documents expire by; purge what has expired.",
            discussion: """
                A document whose expiry member holds a time that has passed (an ISO 8601 timestamp or \
                seconds since 1970) is gone for every reader and purged as CouchDB's _purge leaves it. The \
                setting is kept in the store file, so `cloudant serve` enforces it too. Prints \
                {"db","field","purged"?}.

                Examples:
                  cloudant db expiry --db sessions --field expiresAt
                  cloudant db expiry --db sessions --purge
                  cloudant db expiry --db sessions --off
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption
        @Option(help: "The top-level member holding each document's expiry time.") var field: String?
        @Flag(help: "Stop expiring documents.") var off = false
        @Flag(help: "Purge every document that has expired now, and list their ids.") var purge = false

        func validate() throws {
            if field != nil, off { throw ValidationError("Give --field or --off, not both.") }
        }

        func execute() async throws {
            let store = try global.openExisting(database.db)
            if off { try await store.setExpiryField(nil) } else if let field { try await store.setExpiryField(field) }
            // Purge before any read: a read purges what is due by itself, and would leave nothing to list.
            let purged = purge ? try await store.purgeExpired().sorted() : nil
            var answer: JSONObject = ["db": .string(database.db), "field": try await store.expiryField().map(JSONValue.string) ?? .null]
            if let purged { answer["purged"] = .array(purged.map(JSONValue.string)) }
            Output.print(.object(answer))
        }
    }
}
