public import CloudantCore
internal import Foundation

extension DocumentStore {
    /// Watches a query: the sequence yields its result now, then a new result after each commit that
    /// changes it, until the consuming task is cancelled or the store closes.
    ///
    /// ```swift
    /// let request = try FindRequest(JSONValue(parsing: #"{"selector":{"type":"reading"},"sort":[{"takenAt":"desc"}],"limit":10}"#))
    /// for try await result in store.observe(request) {
    ///     show(result.docs)                      // the ten newest readings, after every change to them
    /// }
    /// ```
    ///
    /// A commit is checked against the last result without running the query: a changed document that
    /// neither was in the results nor matches now (or sorts after a full page) costs one selector match.
    /// Otherwise the query runs again, once for a whole burst of commits, and a result equal to the last is
    /// not repeated. A consumer slower than the writes sees the newest result, never a backlog. With `skip`
    /// or a bookmark, any change runs the query again (a change before the page shifts it).
    ///
    /// The sequence throws what ``find(_:limits:visibility:)`` throws for the request (a planning error, a
    /// `$regex` over `limits`) and ends without an error when the store closes. With a `visibility`, every run
    /// of the query and every judgement of a commit applies it first (see ``DocumentVisibility``): a change to
    /// a document the reader may not see never has the selector run on it.
    public func observe(
        _ request: FindRequest, limits: MatchLimits = .default, visibility: DocumentVisibility? = nil
    ) -> LiveQuery {
        var unprojected = request
        unprojected.fields = nil  // Ids and sort keys are needed to judge later changes.
        let observer = LiveQueryObserver(request: unprojected, limits: limits, visibility: visibility)
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: LiveQueryResult.self, bufferingPolicy: .bufferingNewest(1))
        let hub = liveQueries
        let task = Task {
            do {
                let id = try hub.register(observer, in: self)
                defer { hub.unregister(id) }
                var wakeUps = observer.wakeUps.makeAsyncIterator()
                var last: [JSONObject]?
                repeat {
                    observer.beginRun()
                    let (found, seq) = try await findAtSequence(unprojected, limits: limits, visibility: visibility)
                    observer.install(page: found.docs)
                    let docs = request.fields.map { fields in found.docs.map { Self.project($0, fields: fields) } } ?? found.docs
                    if docs != last {
                        continuation.yield(LiveQueryResult(docs: docs, seq: seq, warning: found.warning))
                        last = docs
                    }
                } while await wakeUps.next() != nil && !Task.isCancelled
                continuation.finish()
            } catch {
                // Closing the store ends the sequence; it is not the query's failure.
                if isClosed || error is CancellationError { continuation.finish() } else { continuation.finish(throwing: error) }
            }
        }
        continuation.onTermination = { _ in
            task.cancel()
            observer.finish()
        }
        return LiveQuery(stream)
    }
}

extension DocumentStore {
    /// A signal after each commit (coalesced: one for a burst) that changed a document `predicate` accepts,
    /// or purged any: for live views that are not one Mango query. Every commit after this returns is
    /// considered, so compute the view after calling it, then again on each signal.
    ///
    /// ```swift
    /// let signals = try store.observeChanges { $0.doc?["type"] == "reading" }
    /// show(try await readings())
    /// for await _ in signals { show(try await readings()) }
    /// ```
    ///
    /// `predicate` runs for every committed change while the sequence is iterated: keep it quick. Each
    /// change carries the winning document (`doc`), a tombstone for a deletion. The sequence ends when the
    /// consuming task is cancelled or the store closes.
    /// - Throws: `CloudantError` when the store is closed or cannot be read.
    public func observeChanges(where predicate: @escaping @Sendable (Change) -> Bool) throws -> AsyncStream<Void> {
        let watcher = ChangeWatcher(where: predicate)
        let hub = liveQueries
        let id = try hub.register(watcher, in: self)
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            for await _ in watcher.signals { continuation.yield() }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            watcher.finish()
            hub.unregister(id)
        }
        return stream
    }
}
