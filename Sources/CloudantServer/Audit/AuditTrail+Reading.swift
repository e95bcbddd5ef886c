internal import CloudantCore
public import Foundation

extension AuditTrail {
    /// The entries of the trail in `folder` that match every filter given, oldest first. Only the segments of
    /// the days in range are read, a chunk at a time, so memory holds the matches rather than the files.
    /// - Parameters:
    ///   - folder: The trail's folder (`cloudant serve --audit-folder`, `_audit` in the data folder by default).
    ///   - since: entries at or after this time.
    ///   - until: entries before this time.
    ///   - user: entries of this user.
    ///   - database: entries about this database.
    ///   - keys: the server's keys, to read an encrypted trail (its lines are skipped without them).
    /// - Throws: `CloudantError` `.auditTrailUnusable` when a segment cannot be read.
    public static func entries(
        in folder: String, since: Date? = nil, until: Date? = nil, user: String? = nil, database: String? = nil,
        keys: AuditKeys? = nil
    ) throws -> [AuditEntry] {
        let codec = AuditLineCodec(key: keys?.encryption)
        let segments = AuditSegments(folder: folder)
        let firstDay = since.map(AuditTime.day)
        let lastDay = until.map(AuditTime.day)
        var entries: [AuditEntry] = []
        do {
            for day in try segments.days() {
                if let firstDay, day < firstDay { continue }
                if let lastDay, day > lastDay { continue }
                _ = try AuditLineReader.forEachLine(in: segments.url(forDay: day)) { _, bytes in
                    // A line that does not read back is for `verify` to report; a listing shows what is sound.
                    guard let line = try? codec.decode(bytes), let entry = try? AuditLine.parse(line) else { return true }
                    if let since, entry.time < since { return true }
                    if let until, entry.time >= until { return true }
                    if let user, entry.user != user { return true }
                    if let database, entry.database != database { return true }
                    entries.append(entry)
                    return true
                }
            }
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not read the audit trail in '\(folder)'.", underlying: error)
        }
        return entries
    }
}
