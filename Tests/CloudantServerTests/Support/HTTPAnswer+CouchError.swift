import CloudantCore
import CloudantTestSupport
import Testing

extension HTTPAnswer {
    /// Expects a CouchDB error answer: `status`, and a JSON body that is exactly `{"error": error, "reason": reason}`.
    func expectCouchError(
        _ status: Int, _ error: String, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(self.status == status, "\(text)", sourceLocation: sourceLocation)
        #expect(json == ["error": .string(error), "reason": .string(reason)], sourceLocation: sourceLocation)
    }
}
