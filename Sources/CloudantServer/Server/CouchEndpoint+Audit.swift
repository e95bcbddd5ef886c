internal import CloudantCore
internal import Foundation
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// Records an answered request in the audit trail, when the server keeps one: who (the authenticated
    /// user, or the name a failed login tried), what (``AuditClassifier``), when, from where, and the status.
    func audit(_ request: Request, prepared: CouchRequest?, status: Int, etag: String?, connection: ClientConnection?) {
        guard let auditTrail else { return }
        let target = request.head.path ?? "/"
        let segments: [String]
        let query: QueryParameters
        if let prepared {
            (segments, query) = (prepared.segments, prepared.query)
        } else {
            let parsed = CouchRequest.parseTarget(target)
            (segments, query) = (parsed.segments, parsed.query)
        }
        guard
            let outcome = AuditClassifier.classify(
                method: request.method, segments: segments, query: query, status: status, body: prepared?.body ?? [])
        else { return }
        var user = prepared?.user.name ?? BasicAuthorization(request.headers).name
        if segments == ["_session"] || segments == ["_utils", "login"], request.method == .post, let prepared {
            user = (try? sessionCredentials(in: prepared))?.name ?? user
        }
        auditTrail.record(
            AuditDraft(
                user: user, action: outcome.action.rawValue,
                database: outcome.database, documentID: outcome.documentID, documentIDs: outcome.documentIDs,
                rev: etag.map(Self.unquote), address: connection?.address, method: request.method.rawValue, path: target,
                status: status))
    }

    /// Records one API call the dashboard made for its user, as if the user had made it: the dashboard page
    /// itself is not recorded (it is the calls that read and change data).
    func auditDashboardCall(_ call: CouchRequest, status: Int, etag: String?) {
        guard let auditTrail,
            let outcome = AuditClassifier.classify(
                method: call.method, segments: call.segments, query: call.query, status: status, body: call.body)
        else { return }
        let path = "/" + call.segments.map(DashboardAPI.percentEncoded).joined(separator: "/")
        auditTrail.record(
            AuditDraft(
                user: call.user.name, action: outcome.action.rawValue,
                database: outcome.database, documentID: outcome.documentID, documentIDs: outcome.documentIDs,
                rev: etag.map(Self.unquote), address: call.connection?.address, method: call.method.rawValue, path: path,
                status: status))
    }
}
