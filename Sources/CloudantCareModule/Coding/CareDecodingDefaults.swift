public import Foundation

/// Values a decoder supplies when care JSON leaves out a version's identity: its `uuid`, `effectiveDate` or
/// `timezone`.
///
/// CareKit's JSON always carries them; JSON written by hand or by other tools often does not. Without defaults
/// in the decoder's `userInfo`, a missing field is a `DecodingError.keyNotFound`, as in CareKit.
///
/// ```swift
/// let decoder = CloudantJSONCoding.makeDecoder()
/// decoder.userInfo[CareDecodingDefaults.userInfoKey] = CareDecodingDefaults(now: { clock.now })
/// let task = try decoder.decode(CareTask.self, from: json)
/// ```
public struct CareDecodingDefaults: Sendable {
    /// The `userInfo` key under which a decoder carries the defaults.
    public static let userInfoKey: CodingUserInfoKey = {
        guard let key = CodingUserInfoKey(rawValue: "org.theraforge.cloudant.care.decodingDefaults") else {
            preconditionFailure("A non-empty raw value always makes a CodingUserInfoKey.")
        }
        return key
    }()

    /// Mints the `uuid` of a version that has none.
    public var makeUUID: @Sendable () -> UUID
    /// The `effectiveDate` of a version that has none (tasks use their schedule's start instead).
    public var now: @Sendable () -> Date
    /// The `timezone` of a version that has none.
    public var timeZone: TimeZone

    /// Creates defaults; the live defaults are random UUIDs, the system clock and the current time zone.
    public init(
        makeUUID: @escaping @Sendable () -> UUID = { UUID() },
        now: @escaping @Sendable () -> Date = { Date() },
        timeZone: TimeZone = .current
    ) {
        self.makeUUID = makeUUID
        self.now = now
        self.timeZone = timeZone
    }
}

extension Decoder {
    var careDecodingDefaults: CareDecodingDefaults? {
        userInfo[CareDecodingDefaults.userInfoKey] as? CareDecodingDefaults
    }
}
