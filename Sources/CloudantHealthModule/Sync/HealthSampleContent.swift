internal import CloudantCore
internal import Foundation

/// What a sample says, without the store revision it was read at: two sides hold the same sample when their
/// contents are equal. Compared as JSON, so dates are compared at the millisecond the store keeps.
struct HealthSampleContent: Equatable {
    private let json: JSONValue

    init(_ sample: AnyHealthSample) throws {
        json = try JSONValue(encoding: sample.withoutRevision.sample)
    }
}

extension AnyHealthSample {
    /// The same sample with no `revId`.
    var withoutRevision: AnyHealthSample {
        switch self {
        case .category(var sample): sample.revId = nil; return .category(sample)
        case .quantity(var sample): sample.revId = nil; return .quantity(sample)
        case .correlation(var sample): sample.revId = nil; return .correlation(sample)
        case .workout(var sample): sample.revId = nil; return .workout(sample)
        case .workoutRoute(var sample): sample.revId = nil; return .workoutRoute(sample)
        case .cdaDocument(var sample): sample.revId = nil; return .cdaDocument(sample)
        case .activitySummary(var sample): sample.revId = nil; return .activitySummary(sample)
        case .clinicalRecord(var sample): sample.revId = nil; return .clinicalRecord(sample)
        case .generic(var sample): sample.revId = nil; return .generic(sample)
        }
    }
}
