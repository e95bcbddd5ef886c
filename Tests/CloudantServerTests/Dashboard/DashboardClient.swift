import CloudantCore
import CloudantTestSupport
import Foundation

/// Drives the dashboard as a browser would: GETs pages and posts their forms (URL-encoded or multipart),
/// with the form's CSRF token read from the page it came from.
struct DashboardClient {
    var client: TestClient

    /// The admin with basic auth.
    init(_ server: LiveServer) { client = server.admin }

    init(client: TestClient) { self.client = client }

    func get(_ path: String) async throws -> HTTPAnswer { try await client.get(path) }

    /// The `_csrf` value of the first form on `page`.
    static func token(in page: HTTPAnswer) -> String? {
        guard let range = page.text.range(of: #"name="_csrf" value="([^"]*)""#, options: .regularExpression) else { return nil }
        let match = page.text[range]
        return match.split(separator: "\"").dropFirst(3).first.map(String.init)
    }

    /// Posts `fields` URL-encoded, with the token of `tokenFrom` (a page path) unless `token` is given.
    func post(
        _ path: String, _ fields: [(String, String)], tokenFrom: String = "/_utils/", token: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPAnswer {
        var all = fields
        var token = token
        if token == nil { token = Self.token(in: try await get(tokenFrom)) }
        if let token { all.append(("_csrf", token)) }
        let body = all.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&")
        return try await client.send(
            "POST", path, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    /// Posts a `multipart/form-data` body with text fields and one file.
    func upload(
        _ path: String, fields: [(String, String)], file: (field: String, name: String, type: String, bytes: Data)
    ) async throws -> HTTPAnswer {
        let boundary = "----cloudant-test-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Data(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\nContent-Type: \(file.type)\r\n\r\n".utf8)
        body += file.bytes + Data("\r\n--\(boundary)--\r\n".utf8)
        return try await client.send("POST", path, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
