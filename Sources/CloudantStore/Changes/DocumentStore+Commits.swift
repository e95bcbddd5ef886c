extension DocumentStore {
    /// A stream that yields after writes to the store commit, and ends when the store closes.
    ///
    /// It carries no data and several commits may come as one wake-up: read the changes feed from the last
    /// sequence you saw. For code that must know a database changed however it was written (a server's
    /// `/_db_updates`, a cache to drop).
    ///
    /// ```swift
    /// for await _ in store.commits() { refresh() }
    /// ```
    public func commits() -> AsyncStream<Void> { notifier.subscribe() }
}

extension DocumentStore {
    /// How many writes have committed since the store was opened (documents, indexes, purges, imports): with
    /// ``commits()``, lets an observer tell whether it has accounted for every commit so far.
    public var commitsSinceOpen: Int { notifier.publishedCount }
}
