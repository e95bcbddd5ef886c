internal import CloudantCore
internal import Foundation
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// Records an answered request in the audit trail, when the server keeps one: who (the authenticated user;
    /// for a request whose credentials were refused, the name they gave as the one tried, never as the user),
    /// what (``AuditClassifier``), when, from where, and the status.
    func audit(
        _ request: Request, prepared: CouchRequest?, stage: AuthenticationStage, status: Int, etag: String?,
        connection: ClientConnection?
    ) {
        guard let auditTrail else { return }
        let target = request.head.path ?? "/"
        let segments: [String]
        let query: QueryParameters
        if let prepared {
            (segments, query) = (prepared.segments, prepared.query)
        } else {
            let parsed = CouchRequest.parseTarget(target, plusIsSpace: nodeConfiguration.decodePlusToSpace)
            (segments, query) = (parsed.segments, parsed.query)
        }
        guard
            let outcome = AuditClassifier.classify(
                method: request.method, segments: segments, query: query, status: status, body: prepared?.body ?? [])
        else { return }
        var user: String?
        var authentication: String
        var tried: String?
        switch stage {
        case .notReached:
            authentication = "not_reached"
        case .failed(let name):
            (authentication, tried) = ("failed", name)
        case .done:
            user = prepared?.user.name
            authentication = prepared?.user.isAuthenticated == true ? "authenticated" : "anonymous"
        }
        // A login names its user once it succeeds; a refused one names the name it tried.
        if segments == ["_session"] || segments == ["_utils", "login"], request.method == .post, let prepared,
            let name = (try? sessionCredentials(in: prepared))?.name
        {
            if outcome.action == .login {
                (user, authentication, tried) = (name, "authenticated", nil)
            } else if !prepared.user.isAuthenticated {
                (user, authentication, tried) = (nil, "failed", name)
            }
        }
        auditTrail.record(
            AuditDraft(
                user: user, action: outcome.action.rawValue,
                database: outcome.database, documentID: outcome.documentID, documentIDs: outcome.documentIDs,
                rev: etag.map(Self.unquote), address: connection?.address, method: request.method.rawValue, path: target,
                status: status, authentication: authentication, triedUser: tried))
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
                status: status, authentication: call.user.isAuthenticated ? "authenticated" : "anonymous"))
    }
}
