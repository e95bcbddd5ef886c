public import CloudantCore
public import Foundation
internal import Crypto

/// One line of the audit trail: who did what to which database and document, when, from where, and how the
/// server answered; chained to the line before by a SHA-256 hash.
public struct AuditEntry: Sendable, Hashable {
    /// The position in the trail, from 1, without gaps.
    public var sequence: Int64
    /// When the request was answered (millisecond precision, UTC in the file).
    public var time: Date
    /// The user the request acted for: `nil` unless its credentials were accepted (see ``authentication``).
    public var user: String?
    /// `read`, `write`, `delete`, `replicate`, `refused`, `login`, `logout` or `session_revoked`.
    public var action: String
    /// The database, when the request concerned one.
    public var database: String?
    /// The document, when the request named one.
    public var documentID: String?
    /// The documents a bulk request named (`_bulk_docs`, `_bulk_get`, `_revs_diff`, `keys`).
    public var documentIDs: [String]
    /// The revision the answer carried (its `ETag`), when it had one.
    public var rev: String?
    /// The client's IP address.
    public var address: String?
    /// The HTTP method.
    public var method: String
    /// The path and query as requested.
    public var path: String
    /// The HTTP status answered.
    public var status: Int
    /// How the request stood with authentication: `authenticated` (``user`` is who), `anonymous` (no
    /// credentials), `failed` (credentials refused: wrong, throttled, or the login queue was full; ``triedUser``
    /// is the name they gave) or `not_reached` (refused before its credentials were looked at, such as a
    /// malformed path). Entries written before this was recorded read as `authenticated` or `anonymous`.
    public var authentication: String
    /// The name a refused login gave, with `failed`.
    public var triedUser: String?
    /// On the first entry of a day's segment: what the previous segment held when the writer left it.
    public var seal: AuditSeal?
    /// The hash of the previous entry (64 zeros for the first entry ever written).
    public var previousHash: String
    /// SHA-256 of this entry's canonical line, hex.
    public var hash: String

    /// The hash before the first entry.
    public static let genesisHash = String(repeating: "0", count: 64)

    /// The entry as JSON (the CLI prints this).
    public var json: JSONValue {
        [
            "seq": .number(JSONNumber(sequence)), "time": .string(AuditTime.format(time)),
            "user": user.map(JSONValue.string) ?? .null, "action": .string(action),
            "db": database.map(JSONValue.string) ?? .null, "doc": documentID.map(JSONValue.string) ?? .null,
            "docs": .array(documentIDs.map(JSONValue.string)), "rev": rev.map(JSONValue.string) ?? .null,
            "address": address.map(JSONValue.string) ?? .null, "method": .string(method), "path": .string(path),
            "status": .number(JSONNumber(status)), "auth": .string(authentication),
            "tried": triedUser.map(JSONValue.string) ?? .null, "seal": seal?.json ?? .null,
            "prev": .string(previousHash), "hash": .string(hash),
        ]
    }
}

/// What a day's segment held when the writer moved on to the next day: carried by the next segment's first entry
/// (and so chained and hashed with it), so that lines cut off the end of a day are found even when the chain of
/// sequences and hashes could be mended.
public struct AuditSeal: Sendable, Hashable {
    /// The sealed segment's day, `YYYY-MM-DD`.
    public var day: String
    /// Its lines.
    public var lines: Int
    /// Its last entry's hash.
    public var hash: String

    var json: JSONValue { ["day": .string(day), "lines": .number(JSONNumber(lines)), "hash": .string(hash)] }

    init(day: String, lines: Int, hash: String) {
        self.day = day
        self.lines = lines
        self.hash = hash
    }

    init?(json: JSONValue?) {
        guard let object = json?.objectValue, let day = object["day"]?.stringValue,
            let lines = object["lines"]?.numberValue?.int64Value, let hash = object["hash"]?.stringValue
        else { return nil }
        self.init(day: day, lines: Int(lines), hash: hash)
    }
}

/// What the server hands the trail for one answered request; the trail adds the sequence and the hashes.
struct AuditDraft: Sendable {
    /// Set by the trail's clock when recorded (see ``AuditTrail/record(_:)``), so entries are in time order.
    var time = Date.distantPast
    var user: String?
    var action: String
    var database: String?
    var documentID: String?
    var documentIDs: [String]
    var rev: String?
    var address: String?
    var method: String
    var path: String
    var status: Int
    /// See ``AuditEntry/authentication``.
    var authentication = "anonymous"
    var triedUser: String?
    /// Set by the writer on a day's first entry.
    var seal: AuditSeal?
}

/// The one way entries are written and read back, so that the hash covers exactly the bytes on disk.
///
/// A line is a JSON object whose members come in a fixed order and whose last member is `"hash"`; the hash is
/// the SHA-256 of the line without that last member (`…,"prev":"…"}`), so any byte changed anywhere in the line,
/// or a line moved, removed or inserted, breaks the chain.
enum AuditLine {
    private static let hashSuffixLength = #","hash":""#.utf8.count + 64 + #""}"#.utf8.count

    /// The canonical bytes (without the hash) of `draft` at `sequence` after `previousHash`.
    static func canonical(_ draft: AuditDraft, sequence: Int64, previousHash: String) -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("seq", .number(JSONNumber(sequence))), ("time", .string(AuditTime.format(draft.time))),
            ("user", draft.user.map(JSONValue.string) ?? .null), ("action", .string(draft.action)),
            ("db", draft.database.map(JSONValue.string) ?? .null), ("doc", draft.documentID.map(JSONValue.string) ?? .null),
            ("docs", .array(draft.documentIDs.map(JSONValue.string))), ("rev", draft.rev.map(JSONValue.string) ?? .null),
            ("address", draft.address.map(JSONValue.string) ?? .null), ("method", .string(draft.method)),
            ("path", .string(draft.path)), ("status", .number(JSONNumber(draft.status))),
        ]
        members.append(("auth", .string(draft.authentication)))
        members.append(("tried", draft.triedUser.map(JSONValue.string) ?? .null))
        if let seal = draft.seal { members.append(("seal", seal.json)) }
        members.append(("prev", .string(previousHash)))
        return JSONValue.object(JSONObject(members)).jsonBytes()
    }

    /// The hex SHA-256 of canonical bytes.
    static func hash(of canonical: [UInt8]) -> String {
        Hex.encode(Array(SHA256.hash(data: canonical)))
    }

    /// The full line (with its newline) for canonical bytes and their hash.
    static func line(canonical: [UInt8], hash: String) -> [UInt8] {
        Array(canonical.dropLast()) + Array(#","hash":""#.utf8) + Array(hash.utf8) + Array(#""}"#.utf8) + [10]
    }

    /// Why a line does not read back.
    enum Problem: Error, Equatable {
        case malformed
        case hashMismatch
    }

    /// Reads one line (without its newline), checking that its hash is the hash of the rest.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(Problem) -> AuditEntry {
        let suffixStart = bytes.endIndex - hashSuffixLength
        guard bytes.count > hashSuffixLength, bytes.last == UInt8(ascii: "}"),
            bytes[suffixStart..<(suffixStart + 9)].elementsEqual(#","hash":""#.utf8)
        else { throw .malformed }
        let hash = String(decoding: bytes[(suffixStart + 9)..<(bytes.endIndex - 2)], as: UTF8.self)
        let canonical = Array(bytes[..<suffixStart]) + [UInt8(ascii: "}")]
        guard Self.hash(of: canonical) == hash else { throw .hashMismatch }
        guard let object = try? JSONValue(parsing: canonical).objectValue,
            let sequence = object["seq"]?.numberValue?.int64Value, let timeText = object["time"]?.stringValue,
            let time = AuditTime.parse(timeText), let action = object["action"]?.stringValue,
            let method = object["method"]?.stringValue, let path = object["path"]?.stringValue,
            let status = object["status"]?.numberValue?.int64Value, let previous = object["prev"]?.stringValue
        else { throw .malformed }
        return AuditEntry(
            sequence: sequence, time: time, user: object["user"]?.stringValue, action: action,
            database: object["db"]?.stringValue, documentID: object["doc"]?.stringValue,
            documentIDs: (object["docs"]?.arrayValue ?? []).compactMap(\.stringValue), rev: object["rev"]?.stringValue,
            address: object["address"]?.stringValue, method: method, path: path, status: Int(status),
            authentication: object["auth"]?.stringValue ?? (object["user"]?.stringValue == nil ? "anonymous" : "authenticated"),
            triedUser: object["tried"]?.stringValue, seal: AuditSeal(json: object["seal"]),
            previousHash: previous, hash: hash)
    }
}

/// The trail's timestamps: ISO 8601 in UTC with milliseconds (`2026-11-26T21:05:03.123Z`), by the package's
/// one writer and reader (``ISO8601Timestamp``), so an entry prints the time its line holds.
enum AuditTime {
    static func format(_ date: Date) -> String { ISO8601Timestamp.string(from: date) ?? "" }

    static func parse(_ text: String) -> Date? { ISO8601Timestamp.date(from: text) }

    /// The UTC day of `date`, `YYYY-MM-DD`: the name of its segment.
    static func day(_ date: Date) -> String {
        String(format(date).prefix(10))
    }
}
