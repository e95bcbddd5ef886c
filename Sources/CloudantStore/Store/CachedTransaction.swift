internal import GRDB

extension Database {
    /// The transactions ``inCachedTransaction(_:_:)`` opens.
    enum CachedTransactionKind {
        /// Takes the write lock at once (writes: no upgrade from a read lock that could fail busy).
        case immediate
        /// Takes a read snapshot at the first read (reads).
        case deferred

        fileprivate var begin: String {
            switch self {
            case .immediate: "BEGIN IMMEDIATE TRANSACTION"
            case .deferred: "BEGIN DEFERRED TRANSACTION"
            }
        }
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws.
    ///
    /// What GRDB's `write` and `read` do, with `BEGIN` and `COMMIT` as cached statements: GRDB parses and
    /// prepares both afresh for every transaction, which profiled at about 4 % of a single-document `put`
    /// and 2 % of a document `GET` over HTTP. They still run through GRDB's statement hooks, so its view of
    /// the transaction stays right. Call it only outside a transaction (`writeWithoutTransaction`,
    /// `unsafeRead`).
    func inCachedTransaction<T>(_ kind: CachedTransactionKind, _ body: (Database) throws -> T) throws -> T {
        try cachedStatement(sql: kind.begin).execute()
        do {
            let value = try body(self)
            // A statement that failed inside `body` may have rolled the transaction back already (a full disk):
            // then this COMMIT fails ("no transaction is active") and the caller gets that error.
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            if isInsideTransaction { try? rollback() }
            throw error
        }
    }
}
