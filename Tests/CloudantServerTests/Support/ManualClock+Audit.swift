import CloudantTestSupport
import Foundation

extension ManualClock {
    /// The clock the audit trail tests hand their trails: 2026-11-18T11:06:40Z until set or advanced.
    static func auditTrail() -> ManualClock { ManualClock(Date(timeIntervalSince1970: 1_795_000_000)) }

    /// Moves the time forward by `days` days (a fraction for part of one).
    func advance(days: Double) { advance(by: days * 86_400) }
}
