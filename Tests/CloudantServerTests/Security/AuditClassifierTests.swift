import CloudantCore
import Testing

@testable import CloudantServer

/// Which action, database and document an answered request is recorded as.
@Suite("Audit: requests classified as CouchDB lays out its URLs")
struct AuditClassifierTests {
    private func classify(
        _ method: Method, _ path: String, status: Int = 200, body: String = ""
    ) -> AuditClassifier.Outcome? {
        let (segments, query, _) = CouchRequest.parseTarget(path)
        return AuditClassifier.classify(
            methodName: method.rawValue, segments: segments, query: query, status: status, body: Array(body.utf8))
    }

    enum Method: String {
        case get = "GET", put = "PUT", post = "POST", delete = "DELETE"
    }

    @Test func documentReadsWritesAndDeletionsNameTheirDatabaseAndDocument() {
        #expect(classify(.get, "/ward/obs-1") == .init(action: .read, database: "ward", documentID: "obs-1"))
        #expect(classify(.put, "/ward/obs-1", status: 201) == .init(action: .write, database: "ward", documentID: "obs-1"))
        #expect(classify(.delete, "/ward/obs-1?rev=1-a") == .init(action: .delete, database: "ward", documentID: "obs-1"))
        #expect(classify(.get, "/ward/_design/app") == .init(action: .read, database: "ward", documentID: "_design/app"))
        #expect(classify(.get, "/ward/obs-1/scan.pdf")?.documentID == "obs-1")
        #expect(classify(.delete, "/ward") == .init(action: .delete, database: "ward"))
        #expect(classify(.post, "/ward/_find", body: #"{"selector":{}}"#) == .init(action: .read, database: "ward"))
    }

    @Test func theReplicationProtocolIsRecordedAsReplicationWithTheDocumentsItNamed() {
        let diff = classify(.post, "/ward/_revs_diff", body: #"{"a":["1-x"],"b":["2-y"]}"#)
        #expect(diff == .init(action: .replicate, database: "ward", documentIDs: ["a", "b"]))
        let get = classify(.post, "/ward/_bulk_get", body: #"{"docs":[{"id":"a"},{"id":"b","rev":"1-x"}]}"#)
        #expect(get?.action == .replicate && get?.documentIDs == ["a", "b"])
        let push = classify(.post, "/ward/_bulk_docs", body: #"{"new_edits":false,"docs":[{"_id":"a","_rev":"1-x"}]}"#)
        #expect(push?.action == .replicate && push?.documentIDs == ["a"])
        #expect(classify(.put, "/ward/_local/checkpoint")?.action == .replicate)
        #expect(classify(.get, "/ward/a?open_revs=all")?.action == .replicate)
        let bulk = classify(.post, "/ward/_bulk_docs", body: #"{"docs":[{"_id":"a"},{"_id":"b"}]}"#)
        #expect(bulk == .init(action: .write, database: "ward", documentIDs: ["a", "b"]))
    }

    @Test func refusalsLoginsAndSessionsAreRecordedAndHousekeepingIsNot() {
        #expect(classify(.get, "/ward/obs-1", status: 403)?.action == .refused)
        #expect(classify(.get, "/ward/obs-1", status: 401)?.action == .refused)
        #expect(classify(.post, "/_session", status: 200)?.action == .login)
        #expect(classify(.post, "/_session", status: 401)?.action == .refused)
        #expect(classify(.delete, "/_session")?.action == .logout)
        #expect(classify(.delete, "/_sessions/abc")?.action == .sessionRevoked)
        #expect(classify(.get, "/") == nil)
        #expect(classify(.get, "/_up") == nil)
        #expect(classify(.get, "/_uuids") == nil)
        #expect(classify(.get, "/_session") == nil)
    }
}
