public import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    private typealias Documents = StoreSchema.Documents

    /// Runs a Cloudant Query (`_find`): the winning revisions of live, non-design documents that match the
    /// selector, sorted, paged and projected, using the index CouchDB would choose.
    ///
    /// Sorting works with or without an index (unlike CouchDB's `no_usable_index`): documents lacking a
    /// sort field are left out, as an index would leave them out, and ties are broken by `_id`.
    ///
    /// ```swift
    /// let request = try FindRequest(JSONValue(parsing: #"{"selector":{"age":{"$gte":18}},"sort":["age"]}"#))
    /// let page = try await store.find(request)
    /// let next = try await store.find({ var r = request; r.bookmark = page.bookmark; return r }())
    /// ```
    ///
    /// Each `$regex` evaluation is bounded by `limits`; cancelling the calling task stops the query, even
    /// in the middle of a regular-expression match or a scan of every document.
    ///
    /// With a `visibility`, each candidate is judged by it before anything else: a document it refuses is never
    /// matched against the selector, counted in `execution_stats` or skipped by `skip`, and the query reads
    /// every candidate whole (no condition is checked in SQL first, no covering index, no text-search
    /// ranking, whose scores would count the documents it refuses: text matches come in `_id` order).
    ///
    /// - Throws: `CloudantError` with a `QueryErrorKind` for a bad bookmark, a partition query on a
    ///   store that is not partitioned, or a planning error (see `QueryPlanner`);
    ///   `QueryErrorKind.badArg` (field `$regex`) when a `$regex` goes over `MatchLimits.regexStepLimit`;
    ///   `CancellationError` when the task is cancelled.
    public func find(
        _ request: FindRequest, limits: MatchLimits = .default, visibility: DocumentVisibility? = nil
    ) async throws -> FindResult {
        try await find(request, limits: limits, visibility: visibility, readingSequence: false, encodingDocuments: false).result
    }

    /// ``find(_:limits:visibility:)`` answered as the bytes of CouchDB's `_find` body (what ``FindResult/json``
    /// writes). When the index scan alone decides every match, the documents are written from their stored
    /// bodies without parsing them (see `QueryExecutor+StoredBodies.swift`): the same bytes, less work.
    package func findAnswer(
        _ request: FindRequest, limits: MatchLimits = .default, visibility: DocumentVisibility? = nil
    ) async throws -> [UInt8] {
        let (result, encoded, _) = try await find(
            request, limits: limits, visibility: visibility, readingSequence: false, encodingDocuments: true)
        guard let encoded else { return result.json.jsonBytes() }
        return result.jsonBytes(encodedDocuments: encoded)
    }

    /// ``find(_:limits:visibility:)``, with the update sequence of the snapshot it read: the result reflects exactly
    /// the changes up to it (live queries report it).
    func findAtSequence(
        _ request: FindRequest, limits: MatchLimits = .default, visibility: DocumentVisibility? = nil
    ) async throws -> (result: FindResult, seq: Int64) {
        let (result, _, seq) = try await find(
            request, limits: limits, visibility: visibility, readingSequence: true, encodingDocuments: false)
        return (result, seq)
    }

    /// The query, its page as answer bytes when `encodingDocuments` and the page was written from stored
    /// bodies (the result's `docs` are then empty), and the snapshot's update sequence when
    /// `readingSequence` (else 0: plain `_find` skips the lookup).
    func find(
        _ request: FindRequest, limits: MatchLimits, visibility: DocumentVisibility?, readingSequence: Bool,
        encodingDocuments: Bool
    ) async throws -> (result: FindResult, encoded: [[UInt8]]?, seq: Int64) {
        var limits = limits
        let signal = limits.cancellation ?? CancellationSignal()
        limits.cancellation = signal
        return try await withTaskCancellationHandler {
            try await find(
                request, boundedBy: limits, visibility: visibility, readingSequence: readingSequence,
                encodingDocuments: encodingDocuments)
        } onCancel: {
            signal.cancel()
        }
    }

    private func find(
        _ request: FindRequest, boundedBy limits: MatchLimits, visibility: DocumentVisibility?, readingSequence: Bool,
        encodingDocuments: Bool
    ) async throws -> (result: FindResult, encoded: [[UInt8]]?, seq: Int64) {
        let started = ContinuousClock.now
        let after = try request.bookmark.map(FindBookmark.init(decoding:))
        let cache = indexCache
        // An indexed query is short: run it on this thread, as the async hop to a reader and back costs
        // more than the query (measured: 1.6× instead of 2.5× hand-written SQL). A scan of every document
        // may take seconds, so it runs on GRDB's reader queue and leaves this thread to other tasks.
        let known = cache.lastKnownCatalogue
        let expected = known.flatMap { known in
            try? cache.plans.plan(
                request, indexes: known.indexes.map(\.definition), catalogueVersion: known.schemaVersion,
                databaseIsPartitioned: false)
        }
        let isIndexed = if case .allDocuments? = expected?.access { false } else { expected != nil }
        let run = { @Sendable (db: Database) throws -> (QueryPlan, QueryExecutor.Outcome, Int64) in
            let (version, indexes) = try cache.catalogue(in: db)
            let partitioned = try Self.isPartitioned(db)
            // The plan that chose the thread is this query's plan unless the indexes changed since (a new
            // schema version) or the database is partitioned: planning is a pure function of the request,
            // the indexes and partitioning.
            let plan =
                if let expected, !partitioned, version == known?.schemaVersion { expected } else {
                    try cache.plans.plan(
                        request, indexes: indexes.map(\.definition), catalogueVersion: version,
                        databaseIsPartitioned: partitioned)
                }
            if let refusal = plan.sortRefusal { throw refusal }
            let outcome = try QueryExecutor(
                db: db, request: request, plan: plan, after: after, indexes: indexes, limits: limits,
                encodesDocuments: encodingDocuments, visibility: visibility
            ).run()
            return (plan, outcome, readingSequence ? try SequenceAllocator.latest(in: db) : 0)
        }
        let (plan, outcome, seq) = isIndexed ? try readNow(.storeUnreadable, run) : try await read(.storeUnreadable, run)
        let bookmark = outcome.last?.encoded ?? request.bookmark ?? FindBookmark.empty
        var warnings = plan.warnings
        // CouchDB warns when more than 10 documents were read per result (`index_scan_warning`).
        let read = outcome.docsExamined + outcome.quorumDocsExamined
        if read > QueryExecutor.scanWarningRatio * max(outcome.pageCount, 1) {
            warnings.append(
                "The number of documents examined is high in proportion to the number of results returned. "
                    + "Consider adding a more specific index to improve this.")
        }
        let docs = outcome.page.map { doc in request.fields.map { Self.project(doc, fields: $0) } ?? doc }
        let elapsed = ContinuousClock.now - started
        let stats = request.executionStats
            ? FindResult.ExecutionStats(
                totalKeysExamined: outcome.keysExamined, totalDocsExamined: outcome.docsExamined,
                totalQuorumDocsExamined: outcome.quorumDocsExamined, resultsReturned: outcome.pageCount,
                executionTimeMs: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            : nil
        let result = FindResult(
            docs: docs, bookmark: bookmark, warning: warnings.isEmpty ? nil : warnings.joined(separator: "\n"),
            executionStats: stats, wasRun: !plan.isEmpty)
        return (result, outcome.encodedPage, seq)
    }

    /// Keeps only `fields`, nested as in the document.
    static func project(_ document: JSONObject, fields: [FieldPath]) -> JSONObject {
        var result = JSONValue.object(JSONObject())
        for path in fields {
            guard case .found(let value) = path.lookup(in: .object(document)) else { continue }
            result = Self.setting(value, at: path.segments[...], in: result)
        }
        return result.objectValue ?? JSONObject()
    }

    /// `container` with `value` at `path`, creating the objects on the way (`mango_doc:set_field`).
    static func setting(_ value: JSONValue, at path: ArraySlice<String>, in container: JSONValue) -> JSONValue {
        guard let key = path.first else { return value }
        var object = container.objectValue ?? JSONObject()
        object[key] = setting(value, at: path.dropFirst(), in: object[key] ?? .object(JSONObject()))
        return .object(object)
    }
}
