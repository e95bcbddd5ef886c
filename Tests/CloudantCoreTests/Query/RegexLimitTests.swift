import CloudantCore
import Testing

/// A catastrophic `$regex` such as `(a+)+$` over a long string ends at the step limit instead of running for ever.
@Suite("$regex evaluation is bounded")
struct RegexLimitTests {
    /// 40 `a`s and a character the pattern cannot end on: (a+)+$ backtracks through 2^40 splits.
    static let catastrophicInput = String(repeating: "a", count: 40) + "!"

    @Test func aCatastrophicPatternFailsWithABadArgInsteadOfRunningForever() throws {
        let selector = try MangoSelector(["name": ["$regex": "(a+)+$"]])
        do {
            _ = try selector.matches(["name": .string(Self.catastrophicInput)], limits: MatchLimits(regexStepLimit: 100_000))
            Issue.record("The evaluation should have gone over its step limit")
        } catch let error as CloudantError {
            #expect(error.queryErrorKind == .badArg)
            #expect(error.context.field == "$regex")
            #expect(error.message.contains("regex step limit"))
        }
    }

    @Test func theDefaultLimitAlsoStopsIt() throws {
        let pattern = try RegexPattern("(a+)+$")
        #expect(throws: CloudantError.self) { try pattern.matches(Self.catastrophicInput, limits: .default) }
        // The non-throwing form counts a runaway evaluation as no match.
        #expect(!pattern.matches(Self.catastrophicInput))
    }

    @Test func ordinaryPatternsMatchWellWithinTheLimit() throws {
        let pattern = try RegexPattern("^Jo(h)?n")
        let tight = MatchLimits(regexStepLimit: 10_000)
        #expect(try pattern.matches("John Smith", limits: tight))
        #expect(try !pattern.matches("Jane", limits: tight))
        #expect(try pattern.matches(String(repeating: "x", count: 100_000) + "John", limits: .default) == false)
    }

    @Test func aCancelledEvaluationStopsWithCancellationError() throws {
        let signal = CancellationSignal()
        signal.cancel()
        let selector = try MangoSelector(["name": ["$regex": "(a+)+$"]])
        #expect(throws: CancellationError.self) {
            _ = try selector.matches(["name": .string(Self.catastrophicInput)], limits: MatchLimits(cancellation: signal))
        }
    }

    @Test func limitsReachNestedOperators() throws {
        let selector = try MangoSelector(["tags": ["$elemMatch": ["$regex": "(a+)+$"]]])
        #expect(throws: CloudantError.self) {
            _ = try selector.matches(["tags": [.string(Self.catastrophicInput)]], limits: MatchLimits(regexStepLimit: 100_000))
        }
    }
}
