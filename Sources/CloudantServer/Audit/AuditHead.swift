internal import CloudantCore
internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// The signed head of an audit trail (`head.json`): where the chain ends (the last entry's sequence and hash),
/// the newest day's segment and how many lines it holds, and the anchor the chain starts after; with an
/// HMAC-SHA256 of all that under the server's key.
///
/// The writer rewrites it after every batch it syncs, so the head is never ahead of the lines (a crash can
/// leave it a batch behind, never more). It is what the hash chain alone cannot show: lines cut off the end of
/// the newest segment, the newest segment removed, or the oldest removed behind a hand-written anchor, all leave
/// a chain that holds but a head that does not match it, and a head cannot be written again without the key.
struct AuditHead: Sendable, Hashable {
    var sequence: Int64
    var hash: String
    /// The newest segment's day.
    var day: String?
    /// The lines of the newest segment.
    var lines: Int
    var anchorSequence: Int64
    var anchorHash: String

    static let fileName = "head.json"

    /// The signed members, in a fixed order.
    var canonical: [UInt8] {
        let members: [(String, JSONValue)] = [
            ("seq", .number(JSONNumber(sequence))), ("hash", .string(hash)), ("day", day.map(JSONValue.string) ?? .null),
            ("lines", .number(JSONNumber(lines))), ("anchor_seq", .number(JSONNumber(anchorSequence))),
            ("anchor_hash", .string(anchorHash)),
        ]
        return JSONValue.object(JSONObject(members)).jsonBytes()
    }

    /// What reading a head found.
    enum Read {
        case missing
        /// A head whose MAC holds (or, without keys, that could not be checked).
        case found(AuditHead, signed: Bool)
        /// A head that does not read, or whose MAC does not hold.
        case forged
    }

    static func read(in folder: URL, keys: AuditKeys?) -> Read {
        let url = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { return .missing }
        guard let object = try? JSONValue(parsing: data).objectValue, let sequence = object["seq"]?.numberValue?.int64Value,
            let hash = object["hash"]?.stringValue, let lines = object["lines"]?.numberValue?.int64Value,
            let anchorSequence = object["anchor_seq"]?.numberValue?.int64Value,
            let anchorHash = object["anchor_hash"]?.stringValue
        else { return .forged }
        let head = AuditHead(
            sequence: sequence, hash: hash, day: object["day"]?.stringValue, lines: Int(lines),
            anchorSequence: anchorSequence, anchorHash: anchorHash)
        guard let keys else { return .found(head, signed: false) }
        guard let mac = object["mac"]?.stringValue, keys.isSignature(mac, of: head.canonical) else { return .forged }
        return .found(head, signed: true)
    }

    /// Writes the head, signed: a new file synced, then renamed over the old one.
    func write(in folder: URL, keys: AuditKeys) throws {
        var bytes = canonical
        bytes.removeLast()  // "}"
        bytes += Array(#","mac":""#.utf8) + Array(keys.signature(of: canonical).utf8) + Array("\"}\n".utf8)
        let temporary = folder.appendingPathComponent(Self.fileName + ".tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CloudantError(.auditTrailUnusable, "Could not write '\(temporary.path)'.") }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fdatasync(descriptor)
        Glibc.close(descriptor)
        guard written == bytes.count, synced == 0,
            rename(temporary.path, folder.appendingPathComponent(Self.fileName).path) == 0
        else { throw CloudantError(.auditTrailUnusable, "Could not write the audit head in '\(folder.path)'.") }
    }

    /// Keeps a head that did not match the trail when the writer opened it, with why, as evidence
    /// (`tamper-<time>.json`): verification reports it until someone who has looked removes it.
    static func keepEvidence(in folder: URL, reason: String, at time: Date) {
        let source = folder.appendingPathComponent(fileName)
        let head = FileManager.default.contents(atPath: source.path).flatMap { try? JSONValue(parsing: $0) } ?? .null
        let evidence: JSONValue = ["found": .string(AuditTime.format(time)), "reason": .string(reason), "head": head]
        let name = "tamper-" + AuditTime.format(time).replacingOccurrences(of: ":", with: "-") + ".json"
        try? Data(evidence.jsonBytes()).write(to: folder.appendingPathComponent(name))
    }

    /// The evidence files of a folder, oldest first.
    static func evidence(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasPrefix("tamper-") && $0.hasSuffix(".json") }.sorted()
    }
}
