public import CloudantCore
public import Foundation

/// What every stored health sample has: HealthKit's type identifier, an interval kept with the time-zone
/// offset it was recorded in, its source and device, and metadata of any JSON type.
///
/// ```swift
/// func describe(_ sample: some HealthSample) -> String {
///     "\(sample.typeIdentifier) at \(sample.startDate) (UTC\(sample.startUTCOffset ?? 0)s)"
/// }
/// ```
public protocol HealthSample: CloudantEntity, Hashable, SelfDescribingEntity where ID == String {
    /// The family of the sample.
    static var sampleType: HealthSampleType { get }
    /// The document id (the sample's uuid unless an import derived it from the record's content).
    var id: String { get }
    /// HealthKit's uuid for the sample, as uppercase text.
    var uuid: String { get }
    /// HealthKit's type identifier (`HKQuantityTypeIdentifierHeartRate`, `HKWorkoutTypeIdentifier`).
    var typeIdentifier: String { get }
    /// When the sample starts.
    var startDate: Date { get }
    /// When the sample ends.
    var endDate: Date { get }
    /// The UTC offset in seconds the start was recorded in (`-25200` for `-0700`), when known.
    var startUTCOffset: Int? { get }
    /// The UTC offset in seconds the end was recorded in, when known.
    var endUTCOffset: Int? { get }
    /// The app or device that wrote the sample.
    var source: HealthSource? { get }
    /// The hardware that measured it.
    var device: HealthDevice? { get }
    /// HealthKit metadata, any JSON value per key (`HKWasUserEntered`, `HKTimeZone`, custom keys).
    var metadata: [String: JSONValue] { get }
}

extension HealthSample {
    /// The start as the local wall-clock time it was recorded in, when the offset is known.
    public var startTimeZone: TimeZone? { startUTCOffset.flatMap { TimeZone(secondsFromGMT: $0) } }
    /// The start as it was written: the instant with the UTC offset it was recorded in (`2024-06-01 13:00:00
    /// -0700`, see ``LocalTimestamp/exportText`` and ``LocalTimestamp/iso8601``); `nil` when the offset is unknown.
    public var localStartDate: LocalTimestamp? { startUTCOffset.map { LocalTimestamp(date: startDate, utcOffset: $0) } }
    /// The end as it was written, with its own offset (a flight can end in another zone than it started).
    public var localEndDate: LocalTimestamp? { endUTCOffset.map { LocalTimestamp(date: endDate, utcOffset: $0) } }
    /// The sample's duration in seconds.
    public var duration: TimeInterval { endDate.timeIntervalSince(startDate) }
}
