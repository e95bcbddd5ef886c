internal import Foundation

/// A CouchDB revision identifier, `"<generation>-<hash>"`.
///
/// ```swift
/// let rev = try RevisionID(parsing: "2-7051CBE5C8FAECD085A3FA619E6E6337")
/// rev.generation    // 2
/// rev.hash          // "7051cbe5c8faecd085a3fa619e6e6337": 32-character hex is lowercased
/// rev.description   // "2-7051cbe5c8faecd085a3fa619e6e6337"
/// ```
///
/// Revisions order by generation, then by hash compared byte by byte: the order CouchDB uses
/// to pick a winning revision. Equality is byte equality too, so that ordering and equality agree even for
/// hashes that Swift's `String` would call canonically equivalent.
public struct RevisionID: Sendable {
    /// The depth of the revision from the document's first revision; stemming never changes it.
    public let generation: Int
    /// The hash as it is kept: see ``Digest``.
    let digest: Digest

    /// The opaque hash part: 32 lowercase hex characters when we minted it, verbatim otherwise.
    public var hash: String { digest.text }

    /// The largest generation a revision may have: 2^53 − 1, the largest integer a JSON number keeps
    /// exactly in every client (JavaScript's `Number.MAX_SAFE_INTEGER`, so PouchDB reads it back intact).
    ///
    /// CouchDB's generations are unbounded Erlang integers; here a larger one is refused when it is parsed
    /// (``init(parsing:)``, `_revisions.start`) and a document at this generation cannot be edited again,
    /// so minting the next generation can never overflow.
    public static let maximumGeneration = 9_007_199_254_740_991

    /// Creates a revision from its parts, taking `hash` verbatim.
    ///
    /// Use it for revisions you mint (always 32 lowercase hex characters); use
    /// ``init(parsing:)`` for revisions that come from outside. A 32-character hash is taken to be hex.
    ///
    /// - Precondition: `generation` is not negative.
    public init(generation: Int, hash: String) {
        self.init(generation: generation, digest: Digest(hash))
    }

    init(generation: Int, digest: Digest) {
        precondition(generation >= 0, "A revision generation is never negative.")
        self.generation = generation
        self.digest = digest
    }

    /// Parses a revision string such as `"3-917fa2381192822767f010b95b45325b"`.
    ///
    /// The text is split at its first `-`. The generation must be decimal digits; `0` is accepted because
    /// `_local` documents use `0-N` revisions, but a revision tree never holds generation 0. A hash
    /// of exactly 32 characters must be hexadecimal and is lowercased, as CouchDB stores it as 16 bytes; a
    /// hash of exactly 16 bytes becomes the 32 hex digits of those bytes, as CouchDB writes it back;
    /// a hash of any other non-zero length is kept verbatim.
    ///
    /// - Throws: `CloudantError.Code.invalidInput` ("Invalid rev format") with field `_rev` and the text
    ///   in `revision`, when there is no `-`, the generation is not a non-negative integer or is above
    ///   ``maximumGeneration``, the hash is empty, or a 32-character hash is not hexadecimal.
    public init(parsing text: String) throws {
        // Replication parses a revision for every row it touches, so this works on the contiguous UTF-8
        // buffer and allocates only the hash string.
        var contiguous = text
        let parsed = contiguous.withUTF8 { Self.parse($0) }
        switch parsed {
        case .success(let generation, let digest): self.init(generation: generation, digest: digest)
        case .failure(let detail): throw Self.invalidFormat(text, detail)
        }
    }

    private enum Parsed {
        case success(Int, Digest)
        case failure(String)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Parsed {
        guard let dash = bytes.firstIndex(of: UInt8(ascii: "-")) else {
            return .failure("there is no \"-\" between generation and hash.")
        }
        var generation = 0
        var overflow = dash == 0
        for byte in bytes[..<dash] where !overflow {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { overflow = true; break }
            let (times10, o1) = generation.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            generation = sum
            overflow = o1 || o2
        }
        if overflow {
            return .failure("the generation before the first \"-\" must be a non-negative integer.")
        }
        if generation > maximumGeneration {
            return .failure("the generation is above the largest one allowed, \(maximumGeneration).")
        }
        let hashBytes = UnsafeBufferPointer(rebasing: bytes[(dash + 1)...])
        guard !hashBytes.isEmpty else { return .failure("the hash after the \"-\" is empty.") }
        // CouchDB keeps a hash as bytes and writes any 16-byte one as 32 hex digits, so a 16-byte hash that
        // is not hex comes back as the hex of its bytes: the same revision, spelled as CouchDB spells it.
        if hashBytes.count == 16 { return .success(generation, Digest(bytes: hashBytes)) }
        guard hashBytes.count == 32 else { return .success(generation, Digest(String(decoding: hashBytes, as: UTF8.self))) }
        guard let digest = Digest.hex(hashBytes, acceptingUppercase: true) else {
            return .failure("a 32-character revision hash must be hexadecimal.")
        }
        return .success(generation, digest)
    }

    private static func invalidFormat(_ text: String, _ detail: String) -> CloudantError {
        CloudantError(
            .invalidInput,
            "Invalid rev format: \(detail) Send a revision exactly as the store returned it, such as \"1-967a00dff5e02add41819138abb3284d\".",
            context: .init(revision: String(text.prefix(120)), field: "_rev"))
    }
}

extension RevisionID: Hashable {
    public static func == (lhs: RevisionID, rhs: RevisionID) -> Bool {
        lhs.generation == rhs.generation && lhs.digest == rhs.digest
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(generation)
        hasher.combine(digest)
    }
}

extension RevisionID: Comparable {
    /// Orders by generation, then by the hash as CouchDB stores it: a 32-digit hex hash
    /// as its 16 bytes, any other hash as its UTF-8 bytes. So `2-fff…f` (bytes `0xff…`) sorts after `2-zzz`
    /// (bytes `0x7a…`), as in CouchDB, though its text sorts before.
    public static func < (lhs: RevisionID, rhs: RevisionID) -> Bool {
        if lhs.generation != rhs.generation { return lhs.generation < rhs.generation }
        return Digest.compare(lhs.digest, rhs.digest) < 0
    }

    /// Compares hashes as CouchDB's stored keys: a hash of 32 hex digits (either case) as the 16 bytes it
    /// spells, any other as its text. Two lowercase hex hashes compare as their text (lowercase hex digits
    /// keep the order of the bytes they spell), so only other pairs pay for decoding. Hashes spelling the same
    /// bytes in different case are ordered by their text, so the order stays total.
    ///
    /// A 32-byte hash that is not hex (a replicated revision may carry any text) is text: taking every
    /// 32-byte hash for hex, as this once did, decoded such text to arbitrary bytes, and the order stopped
    /// being transitive (found by the revision fuzzer: a tree encoded differently after a round trip).
    static func compareStoredHashes(_ lhs: String, _ rhs: String) -> Int {
        let left = HashForm(lhs)
        let right = HashForm(rhs)
        if left == .lowercaseHex, right == .lowercaseHex { return compareBytes(lhs, rhs) }
        if left == .text, right == .text { return compareBytes(lhs, rhs) }
        let leftBytes = left == .text ? Array(lhs.utf8) : hexDecoded(lhs)
        let rightBytes = right == .text ? Array(rhs.utf8) : hexDecoded(rhs)
        let byStoredBytes = leftBytes.withUnsafeBufferPointer { left in rightBytes.withUnsafeBufferPointer { compare(left, $0) } }
        return byStoredBytes != 0 ? byStoredBytes : compareBytes(lhs, rhs)
    }

    /// How CouchDB stores a hash.
    private enum HashForm {
        case lowercaseHex, hex, text

        init(_ hash: String) {
            guard hash.utf8.count == 32 else {
                self = .text
                return
            }
            var lowercase = true
            for byte in hash.utf8 {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
                case UInt8(ascii: "A")...UInt8(ascii: "F"): lowercase = false
                default:
                    self = .text
                    return
                }
            }
            self = lowercase ? .lowercaseHex : .hex
        }
    }

    /// The 16 bytes a 32-digit hex hash spells.
    static func hexDecoded(_ hash: String) -> [UInt8] {
        func value(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: 0
            }
        }
        let digits = Array(hash.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
    }

    /// Compares two strings' UTF-8 bytes: negative, zero or positive like `memcmp`. Revision trees compare
    /// hashes constantly (dictionary lookups, sorting), so native strings take the buffer fast path.
    static func compareBytes(_ lhs: String, _ rhs: String) -> Int {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in compare(left, right) }
        }
        if let result = fast ?? nil { return result }
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        return left.withUnsafeBufferPointer { left in right.withUnsafeBufferPointer { compare(left, $0) } }
    }

    private static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        // `memcmp` orders bytes as unsigned values, as the revision order wants; the shorter of two strings
        // that agree as far as it goes comes first.
        let common = min(left.count, right.count)
        if common > 0, let leftBytes = left.baseAddress, let rightBytes = right.baseAddress {
            let order = memcmp(leftBytes, rightBytes, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return left.count == right.count ? 0 : left.count < right.count ? -1 : 1
    }
}

extension RevisionID: LosslessStringConvertible {
    /// The revision as CouchDB writes it: `"<generation>-<hash>"`.
    public var description: String {
        guard case .hex = digest else { return "\(generation)-\(hash)" }
        // Up to 19 digits (Int.max), the dash and 32 hex digits, written once: revisions are described for
        // every row a read returns.
        return String(unsafeUninitializedCapacity: 52) { writeText(into: $0) }
    }

    /// Writes ``description`` of a revision with a hex hash into `output` (52 bytes at least) and returns how
    /// many bytes it wrote; nothing for any other hash.
    func writeText(into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard case .hex(let high, let low) = digest else { return 0 }
        var count = 0
        var divisor = 1
        while divisor <= generation / 10 { divisor *= 10 }
        while divisor > 0 {
            output[count] = UInt8(ascii: "0") + UInt8(generation / divisor % 10)
            count += 1
            divisor /= 10
        }
        output[count] = UInt8(ascii: "-")
        Digest.writeHex(high: high, low: low, into: output, at: count + 1)
        return count + 33
    }

    /// Parses a revision string, returning `nil` where ``init(parsing:)`` would throw.
    public init?(_ description: String) {
        guard let parsed = try? RevisionID(parsing: description) else { return nil }
        self = parsed
    }
}

extension RevisionID: Codable {
    /// Decodes a revision from its string form.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a valid revision.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: String(describing: error))
        }
    }

    /// Encodes the revision as its string form, `"<generation>-<hash>"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
