internal import Foundation

/// Plans of recent request shapes over one index catalogue, so a query whose shape was planned before only
/// computes its key ranges instead of ranking every index again.
///
/// Applications ask the same few questions with different values (a task's versions by id, a day's
/// outcomes); planning ranked every index for each of them, a tenth of a short indexed query's time. The
/// cached plan is the one ``QueryPlanner`` made for an earlier request of the same ``PlanShape``; its key
/// ranges are recomputed from this request's selector. A request whose values make a field's range empty
/// (CouchDB then ranks with that field alone) and text searches are planned afresh, uncached.
///
/// The cache is for one catalogue at a time: `catalogueVersion` identifies the index definitions (the
/// store passes SQLite's schema version, which every index creation or deletion changes); plans made under
/// another version are dropped.
package final class QueryPlanCache: @unchecked Sendable {
    /// A cached plan and what it needs to be re-ranged.
    private struct Entry {
        var plan: QueryPlan
        /// The chosen index's columns (nil: `_all_docs`).
        var columns: [String]?
    }

    // `lock` protects `version` and `entries`.
    private let lock = NSLock()
    private var version: Int?
    private var entries: [PlanShape: Entry] = [:]
    /// Distinct shapes kept before the cache starts over (an application has far fewer).
    private let capacity: Int

    package init(capacity: Int = 512) {
        self.capacity = capacity
    }

    /// ``QueryPlanner/plan(_:indexes:databaseIsPartitioned:listingCandidates:)`` without candidates, from
    /// the cache when a request of the same shape was planned over the same catalogue. `indexes` is only read
    /// when the request is planned afresh.
    package func plan(
        _ request: FindRequest, indexes: @autoclosure () -> [IndexDefinition], catalogueVersion: Int,
        databaseIsPartitioned: Bool
    ) throws -> QueryPlan {
        func plan() throws -> QueryPlan {
            try QueryPlanner.plan(
                request, indexes: indexes(), databaseIsPartitioned: databaseIsPartitioned, listingCandidates: false)
        }
        guard let shape = PlanShape(request, databaseIsPartitioned: databaseIsPartitioned) else { return try plan() }
        let ranges = IndexRange.fieldRanges(request.selector.root)
        // An empty range changes CouchDB's ranking (that field alone is counted): plan this one afresh.
        if ranges.contains(where: { $0.range == .empty }) { return try plan() }
        let cached = lock.withLock { version == catalogueVersion ? entries[shape] : nil }
        if let cached { return Self.reranged(cached, ranges: ranges, request: request) }
        let fresh = try plan()
        let columns: [String]?? =
            switch fresh.access {
            case .json(let index, _): .some(index.fields.map(\.path))
            case .allDocuments: .some(nil)
            case .text: nil
            }
        if let columns {
            lock.withLock {
                if version != catalogueVersion || entries.count >= capacity {
                    entries.removeAll(keepingCapacity: true)
                    version = catalogueVersion
                }
                entries[shape] = Entry(plan: fresh, columns: columns)
            }
        }
        return fresh
    }

    /// Forgets every plan (the store calls it when a catalogue version it cached may be reused).
    package func removeAll() {
        lock.withLock {
            entries.removeAll()
            version = nil
        }
    }

    /// The cached plan with this request's key ranges, taken as the planner takes them (`rank`): for each of
    /// the index's leading columns, its field's range, up to the first column the selector does not narrow;
    /// `_all_docs` reads the `_id` range, or every id from `null` up.
    private static func reranged(
        _ entry: Entry, ranges: [(field: String, range: IndexRange)], request: FindRequest
    ) -> QueryPlan {
        var plan = entry.plan
        var prefix: [IndexRange] = []
        switch plan.access {
        case .json(let index, _):
            for column in entry.columns ?? [] {
                guard let found = ranges.first(where: { $0.field == column }) else { break }
                prefix.append(found.range)
            }
            plan.access = .json(index, ranges: prefix)
        case .allDocuments:
            let id = ranges.first(where: { $0.field == "_id" })?.range
            prefix = [id ?? .range(lower: .gt(.json(.null)), upper: .lt(.max))]
            plan.access = .allDocuments(prefix[0])
        case .text:
            break
        }
        plan.isEmpty = request.selector.isTopLevelEmptyAndOr || prefix.contains(.empty)
        return plan
    }
}
