public import CloudantCore
internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// The files of an audit trail's folder: one segment per UTC day (`audit-YYYY-MM-DD.jsonl`), the anchor left
/// by retention (`anchor.json`: the sequence and hash of the last entry removed, which the first kept entry
/// must follow) and the writer's lock file.
struct AuditSegments {
    let folder: URL

    static let prefix = "audit-"
    static let suffix = ".jsonl"

    init(folder: String) {
        self.folder = URL(fileURLWithPath: folder, isDirectory: true)
    }

    var anchorURL: URL { folder.appendingPathComponent("anchor.json") }
    var lockURL: URL { folder.appendingPathComponent("audit.lock") }

    /// The name of the segment of `day` (`YYYY-MM-DD`).
    static func fileName(forDay day: String) -> String { prefix + day + suffix }

    func url(forDay day: String) -> URL {
        folder.appendingPathComponent(Self.fileName(forDay: day))
    }

    /// The segments' days, oldest first.
    func days() throws -> [String] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix(Self.prefix) && $0.hasSuffix(Self.suffix) }
            .map { String($0.dropFirst(Self.prefix.count).dropLast(Self.suffix.count)) }
            .sorted()
    }

    /// Where the chain starts: after the anchor when retention removed entries, else before entry 1.
    func anchor() throws -> (sequence: Int64, hash: String) {
        let found = try anchor(keys: nil)
        return (found.sequence, found.hash)
    }

    /// Whether an anchor's signature holds.
    enum AnchorSignature {
        /// There is no anchor: the chain starts at entry 1.
        case none
        case valid
        /// Unsigned (written before anchors were signed) or signed with another key.
        case invalid
        /// No keys to check it with.
        case unchecked
    }

    /// The anchor, and whether `keys` signed it.
    func anchor(keys: AuditKeys?) throws -> (sequence: Int64, hash: String, through: String, signature: AnchorSignature) {
        guard let data = FileManager.default.contents(atPath: anchorURL.path) else {
            return (0, AuditEntry.genesisHash, "", .none)
        }
        guard let object = try? JSONValue(parsing: data).objectValue, let sequence = object["seq"]?.numberValue?.int64Value,
            let hash = object["hash"]?.stringValue
        else {
            throw CloudantError(.auditTrailUnusable, "The audit anchor '\(anchorURL.path)' is not readable.")
        }
        let through = object["pruned_through"]?.stringValue ?? ""
        guard let keys else { return (sequence, hash, through, .unchecked) }
        let signed = object["mac"]?.stringValue.map { keys.isSignature($0, of: Self.anchorCanonical(sequence, hash, through)) }
        return (sequence, hash, through, signed == true ? .valid : .invalid)
    }

    private static func anchorCanonical(_ sequence: Int64, _ hash: String, _ day: String) -> [UInt8] {
        JSONValue.object(
            JSONObject([("seq", .number(JSONNumber(sequence))), ("hash", .string(hash)), ("pruned_through", .string(day))])
        ).jsonBytes()
    }

    /// Records that entries up to `sequence` (whose hash is `hash`) were removed by retention, signed with `keys`.
    /// Written and synced before the segments go: a crash between the two must leave an anchor that covers them.
    func writeAnchor(sequence: Int64, hash: String, throughDay day: String, keys: AuditKeys?) throws {
        var members: [(String, JSONValue)] = [
            ("seq", .number(JSONNumber(sequence))), ("hash", .string(hash)), ("pruned_through", .string(day)),
        ]
        if let keys { members.append(("mac", .string(keys.signature(of: Self.anchorCanonical(sequence, hash, day))))) }
        let temporary = folder.appendingPathComponent("anchor.json.tmp")
        try Data(JSONValue.object(JSONObject(members)).jsonBytes()).write(to: temporary)
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, anchorURL.path) == 0 else {
            throw CloudantError(.auditTrailUnusable, "Could not replace the audit anchor '\(anchorURL.path)'.")
        }
        syncFolder()
    }

    /// Whether a trail has the folder open for writing (holds the lock). Probed with a shared lock taken and
    /// dropped at once, and only when a verification meets an incomplete last line.
    func writerIsActive() -> Bool {
        let descriptor = open(lockURL.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }

    /// Makes the folder's entries (a new segment's name, a renamed anchor, a removed segment) survive a crash.
    func syncFolder() {
        let directory = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard directory >= 0 else { return }
        fsync(directory)
        Glibc.close(directory)
    }
}

/// The audit trail's error codes.
extension CloudantError.Code {
    /// Another process (or another server in this one) writes the audit trail in this folder.
    public static let auditTrailInUse = Self("auditTrailInUse", category: .unavailable)
    /// The audit trail's folder or files cannot be read or written.
    public static let auditTrailUnusable = Self("auditTrailUnusable", category: .internal)
}
