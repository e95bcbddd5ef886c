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

    /// `^(?:(a+)+c|a+!)` matches 30 a's and a `!` through its second branch, which the engine reaches only
    /// after the first has backtracked through 2^30 splits: past the limit, the answer is the step-limit
    /// error, never "no".
    @Test func aMatchTheEngineWouldAbandonIsAStepLimitErrorNeverAWrongNo() throws {
        let pattern = try RegexPattern("^(?:(a+)+c|a+!)")
        #expect(try pattern.matches(String(repeating: "a", count: 12) + "!", limits: .default))
        let unbounded = MatchLimits(regexStepLimit: Int.max)
        #expect(unbounded.effectiveRegexStepLimit == MatchLimits.maximumRegexStepLimit)
        do {
            let matched = try pattern.matches(String(repeating: "a", count: 30) + "!", limits: unbounded)
            #expect(matched, "a match may only be reported or refused, never denied")
        } catch let error as CloudantError {
            #expect(error.queryErrorKind == .badArg)
            #expect(error.message.contains("took more than 20000000 steps"))
            #expect(!error.message.contains("raise the limit"), "the limit cannot be raised past its maximum")
        }
    }

    @Test func theStepLimitInForceIsHeldBetweenOneAndTheMaximum() {
        #expect(MatchLimits(regexStepLimit: 0).effectiveRegexStepLimit == 1)
        #expect(MatchLimits(regexStepLimit: -3).effectiveRegexStepLimit == 1)
        #expect(MatchLimits(regexStepLimit: 500).effectiveRegexStepLimit == 500)
        #expect(MatchLimits().effectiveRegexStepLimit == MatchLimits.defaultRegexStepLimit)
        #expect(MatchLimits(regexStepLimit: .max).effectiveRegexStepLimit == MatchLimits.maximumRegexStepLimit)
    }
}
