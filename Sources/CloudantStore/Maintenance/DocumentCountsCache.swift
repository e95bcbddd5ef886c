internal import Foundation
internal import GRDB

/// The document counts and live body size of the last `info()`, reused while the store has not changed.
///
/// Counting means reading every document row (about a third of a second for a million documents), and every
/// replication asks for a database's info before anything else, so a sync with nothing to do paid that scan
/// on each side (the no-op sync benchmark). Counts change only with a write, which takes a new update sequence, or a purge, which
/// bumps `purge_seq`; the pair is what ``LiveQueryHub`` watches too, and another process writing the file
/// moves it just the same.
final class DocumentCountsCache: @unchecked Sendable {
    struct Counts {
        var live: Int
        var deleted: Int
        var activeSize: Int64
    }

    // `lock` protects `cached`.
    private let lock = NSLock()
    private var cached: (seq: Int64, purgeSeq: Int64, counts: Counts)?

    /// The counts as of `db`'s transaction at position (`seq`, `purgeSeq`), read again only when that moved.
    func counts(at seq: Int64, purgeSeq: Int64, in db: Database) throws -> Counts {
        if let cached = lock.withLock({ cached }), cached.seq == seq, cached.purgeSeq == purgeSeq { return cached.counts }
        let documents = StoreSchema.Documents.self
        let row = try Row.fetchOne(
            db,
            sql: "SELECT COUNT(*) FILTER (WHERE \(documents.deleted) = 0), COUNT(*) FILTER (WHERE \(documents.deleted) = 1), "
                + "COALESCE(SUM(LENGTH(\(documents.body))), 0) FROM \(documents.table)")
        let counts = Counts(live: row?[0] ?? 0, deleted: row?[1] ?? 0, activeSize: row?[2] ?? 0)
        lock.withLock { cached = (seq, purgeSeq, counts) }
        return counts
    }
}
