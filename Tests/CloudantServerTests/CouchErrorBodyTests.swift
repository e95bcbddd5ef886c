import CloudantCore
import CloudantServer
import Testing

@Suite("CouchDB error bodies")
struct CouchErrorBodyTests {
    @Test(arguments: [
        (CloudantError.Code.conflict, 409, "conflict"),
        (.notFound, 404, "not_found"),
        (.invalidValue, 400, "bad_request"),
        (.fetchFailed, 500, "internal_server_error"),
    ])
    func storeErrorsMapToCouchDBsStatusAndName(code: CloudantError.Code, status: Int, name: String) {
        let body = CouchErrorBody(CloudantError(code, "Document update conflict."))
        #expect(body.status == status)
        #expect(body.error == name)
        #expect(body.json == ["error": .string(name), "reason": "Document update conflict."])
    }

    @Test func aConflictAlwaysCarriesCouchDBsExactReason() {
        let body = CouchErrorBody(CloudantError(.conflict, "Document update conflict. Read the document again."))
        #expect(body.reason == "Document update conflict.")
    }
}
