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
        var user = prepared?.user.name ?? Self.attemptedName(request.headers)
        if segments == ["_session"], request.method == .post, let body = prepared?.body {
            user = Self.loginName(in: body) ?? user
        }
        auditTrail.record(
            AuditDraft(
                time: Date(), user: user, action: outcome.action.rawValue,
                database: outcome.database, documentID: outcome.documentID, documentIDs: outcome.documentIDs,
                rev: etag.map(Self.unquote), address: connection?.address, method: request.method.rawValue, path: target,
                status: status))
    }

    /// The name a `POST /_session` logs in as (JSON or form body).
    private static func loginName(in body: [UInt8]) -> String? {
        if let name = (try? JSONValue(parsing: body))?["name"]?.stringValue { return name }
        return QueryParameters(rawQuery: String(decoding: body, as: UTF8.self))["name"]
    }

    /// The name in a basic-auth header, for a request refused before it was authenticated.
    private static func attemptedName(_ headers: HTTPFields) -> String? {
        guard let authorization = headers[.authorization], authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return String(text[..<colon])
    }
}
