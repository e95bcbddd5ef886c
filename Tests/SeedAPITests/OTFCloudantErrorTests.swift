import CloudantCore
import CloudantOnly
import Foundation
import Testing

/// `OTFCloudantError(_:during:)`: the original's cases from our typed errors, by category and operation.
@Suite("OTFCloudantError from typed errors")
struct OTFCloudantErrorTests {
    struct Categorized: CategorizedError, CustomStringConvertible {
        var category: ErrorCategory
        var description: String { "a \(category) failure" }
    }

    static let operations: [OTFCloudantError.Operation] = [.fetch, .add, .update, .delete, .synchronize]

    @Test(arguments: operations)
    func badInputIsAnInvalidValueAndATimeoutTimedOutWhateverTheOperation(operation: OTFCloudantError.Operation) {
        #expect(OTFCloudantError(Categorized(category: .invalidInput), during: operation) == .invalidValue(reason: "a invalidInput failure"))
        #expect(OTFCloudantError(Categorized(category: .tooLarge), during: operation) == .invalidValue(reason: "a tooLarge failure"))
        #expect(OTFCloudantError(Categorized(category: .timedOut), during: operation) == .timedOut(reason: "a timedOut failure"))
    }

    @Test func anythingElseIsTheCaseOfTheOperationThatFailed() {
        let conflict = Categorized(category: .conflict)
        #expect(OTFCloudantError(conflict, during: .fetch) == .fetchFailed(reason: "a conflict failure"))
        #expect(OTFCloudantError(conflict, during: .add) == .addFailed(reason: "a conflict failure"))
        #expect(OTFCloudantError(conflict, during: .update) == .updateFailed(reason: "a conflict failure"))
        #expect(OTFCloudantError(conflict, during: .delete) == .deleteFailed(reason: "a conflict failure"))
        #expect(OTFCloudantError(conflict, during: .synchronize) == .remoteSynchronizationFailed(reason: "a conflict failure"))
        // An unreachable or refusing peer is a synchronisation failure only while synchronising.
        for category in [ErrorCategory.unavailable, .unauthorized, .forbidden] {
            #expect(OTFCloudantError(Categorized(category: category), during: .synchronize).category == .unavailable)
            #expect(OTFCloudantError(Categorized(category: category), during: .add) == .addFailed(reason: "a \(category) failure"))
        }
    }

    @Test func aCloudantErrorKeepsItsContextInTheReasonAndAnOTFErrorPassesThrough() {
        let error = CloudantError(.conflict, "Read it again.", context: .init(documentID: "n1", revision: "1-abc"))
        guard case .updateFailed(let reason) = OTFCloudantError(error, during: .update) else {
            Issue.record("expected updateFailed")
            return
        }
        #expect(reason == "conflict: Read it again. id=n1 rev=1-abc")
        #expect(OTFCloudantError(OTFCloudantError.timedOut(reason: "slow"), during: .add) == .timedOut(reason: "slow"))
        #expect(OTFCloudantError.addFailed(reason: "x").errorDescription == "Failed to add: x")
        #expect(OTFCloudantError.timedOut(reason: "x").localizedDescription == "Timed out: x")
    }
}
