public import CloudantCore
internal import Foundation

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

    func url(forDay day: String) -> URL {
        folder.appendingPathComponent(Self.prefix + day + Self.suffix)
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
        guard let data = FileManager.default.contents(atPath: anchorURL.path) else { return (0, AuditEntry.genesisHash) }
        guard let object = try? JSONValue(parsing: data).objectValue, let sequence = object["seq"]?.numberValue?.int64Value,
            let hash = object["hash"]?.stringValue
        else {
            throw CloudantError(.auditTrailUnusable, "The audit anchor '\(anchorURL.path)' is not readable.")
        }
        return (sequence, hash)
    }

    /// Records that entries up to `sequence` (whose hash is `hash`) were removed by retention; written before
    /// the segments go, atomically.
    func writeAnchor(sequence: Int64, hash: String, throughDay day: String) throws {
        let json: JSONValue = ["seq": .number(JSONNumber(sequence)), "hash": .string(hash), "pruned_through": .string(day)]
        try Data(json.jsonBytes()).write(to: anchorURL, options: .atomic)
    }

    /// Every complete line of a segment, with its 1-based line number; a last line without its newline (a
    /// write a crash cut short) is reported separately.
    func lines(ofDay day: String) throws -> (lines: [(number: Int, bytes: ArraySlice<UInt8>)], torn: Bool) {
        let bytes = try [UInt8](Data(contentsOf: url(forDay: day)))
        var lines: [(Int, ArraySlice<UInt8>)] = []
        var start = bytes.startIndex
        var number = 0
        while let newline = bytes[start...].firstIndex(of: 10) {
            number += 1
            lines.append((number, bytes[start..<newline]))
            start = newline + 1
        }
        return (lines, start < bytes.endIndex)
    }
}

extension CloudantError.Code {
    /// Another process (or another server in this one) writes the audit trail in this folder.
    public static let auditTrailInUse = Self("auditTrailInUse", category: .unavailable)
    /// The audit trail's folder or files cannot be read or written.
    public static let auditTrailUnusable = Self("auditTrailUnusable", category: .internal)
}
