internal import CloudantCore
internal import Crypto
internal import Foundation
internal import HTTPTypes

/// The fields of a dashboard form post (`application/x-www-form-urlencoded`).
struct DashboardForm: Sendable {
    private let fields: QueryParameters

    /// Reads the request's body as a form.
    /// - Throws: ``HTTPFailure`` `415` for another content type.
    init(_ request: CouchRequest) throws {
        let contentType = request.header(.contentType)?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            throw HTTPFailure(
                status: 415, error: "bad_content_type", reason: "Dashboard forms are application/x-www-form-urlencoded.")
        }
        fields = QueryParameters(rawQuery: String(decoding: request.body, as: UTF8.self))
    }

    /// A form of the given fields (the text fields of a multipart upload).
    init(fields pairs: [(String, String)]) {
        var fields = QueryParameters(rawQuery: "")
        for (name, value) in pairs { fields[name] = value }
        self.fields = fields
    }

    /// Every field by name (a repeated name keeps its last value).
    var all: [String: String] { fields.all }

    /// A field's value, `nil` when absent.
    subscript(name: String) -> String? { fields[name] }

    /// A field's value with surrounding white space removed; `nil` when absent or blank.
    func trimmed(_ name: String) -> String? {
        guard let value = fields[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }
}

/// Cross-site request forgery protection for the dashboard's forms.
///
/// Every form that changes something carries a token only the dashboard's own pages know: an HMAC of who is
/// logged in (their cookie session's id, or their name with basic auth) under the server's secret. Another
/// site can make a browser post to the server, cookie and all, but cannot read a page to learn the token.
/// A post whose `Origin` (or `Sec-Fetch-Site`) shows it came from another site is refused too.
struct DashboardCSRF: Sendable {
    let secret: [UInt8]

    /// The token for `request`'s user.
    func token(for request: CouchRequest) -> String {
        let subject = request.session.map { "session:" + $0.id } ?? "user:" + (request.user.name ?? "")
        let code = HMAC<SHA256>.authenticationCode(
            for: Array(("otf-dashboard-csrf\n" + subject).utf8), using: SymmetricKey(data: secret))
        return Base64.encodeURL(code)
    }

    /// Checks a form post: its token, and that it came from the dashboard's own origin.
    /// - Throws: ``HTTPFailure`` `403 forbidden` otherwise.
    func check(_ request: CouchRequest, form: DashboardForm) throws {
        try Self.requireSameSite(request)
        guard let sent = form["_csrf"], ConstantTime.equal(Array(sent.utf8), Array(token(for: request).utf8)) else {
            throw HTTPFailure.forbidden(
                "The form's security token is missing or stale (you may have logged in again since the page was "
                    + "loaded). Reload the page and try again.")
        }
    }

    /// Refuses a post a browser says another site made (`Sec-Fetch-Site: cross-site`), or whose `Origin` is not
    /// this server's: the dashboard's forms, and the logins (`POST /_session` with a form, `POST /_utils/login`),
    /// which carry no token (nobody is logged in yet) but must not log a browser in behind its user's back.
    /// - Throws: ``HTTPFailure`` `403 forbidden`.
    static func requireSameSite(_ request: CouchRequest) throws {
        if let site = request.header(HTTPField.Name("Sec-Fetch-Site")!), site == "cross-site" {
            throw HTTPFailure.forbidden("Cross-site form posts are refused.")
        }
        if let origin = request.header(HTTPField.Name("Origin")!), origin != "null" {
            let host = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
            if let authority = request.authority, host != authority {
                throw HTTPFailure.forbidden("The form was posted from another origin (\(origin)).")
            }
        }
    }
}
