internal import CloudantCore
internal import Foundation
#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif

/// The HTTP requests an ``HTTPPeer`` makes: JSON in, JSON out, authentication applied, and every failure
/// turned into a ``PeerFailure`` the retry policy can classify. TLS is URLSession's (libcurl on Linux).
actor CouchHTTPClient {
    let database: URL
    let authentication: RemoteAuthentication
    let headers: [String: String]
    let timeout: TimeInterval
    private let session: URLSession
    /// The `AuthSession` cookie of a cookie session.
    private var sessionCookie: String?

    init(database: URL, authentication: RemoteAuthentication, headers: [String: String], timeout: TimeInterval) {
        self.database = database
        self.authentication = authentication
        self.headers = headers
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    /// A response: status and parsed JSON body (nil when empty).
    struct Response {
        var status: Int
        var body: JSONValue?
    }

    /// Sends a request to `path` under the database (or the server root when `path` starts with `/`).
    ///
    /// - Parameter accept: Statuses returned rather than thrown (for example 404 on an optional read).
    /// - Parameter contentType: The `Content-Type` of a request without a body (CouchDB requires the JSON
    ///   media type on some bodiless `POST`s, such as `_ensure_full_commit`); a JSON body always has it.
    func send(
        _ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil, accept: Set<Int> = [],
        timeout: TimeInterval? = nil, contentType: String? = nil
    ) async throws -> Response {
        var response = try await perform(method, path, query: query, body: body, timeout: timeout, contentType: contentType)
        if response.status == 401, case .session = authentication {
            sessionCookie = nil  // Expired: log in again once.
            response = try await perform(method, path, query: query, body: body, timeout: timeout, contentType: contentType)
        }
        if (200..<300).contains(response.status) || accept.contains(response.status) { return response }
        throw PeerFailure(
            status: response.status, error: response.body?["error"]?.stringValue ?? "http_error",
            reason: response.body?["reason"]?.stringValue ?? "HTTP \(response.status) from \(method) \(path)")
    }

    private func perform(
        _ method: String, _ path: String, query: [(String, String)], body: JSONValue?, timeout: TimeInterval?,
        contentType: String?
    ) async throws -> Response {
        var request = URLRequest(url: try url(path, query: query))
        request.httpMethod = method
        request.timeoutInterval = timeout ?? self.timeout
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = Data(body.jsonBytes())
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let contentType {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let authorization = authentication.authorizationHeader {
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
        } else if case .session(let user, let password) = authentication {
            request.setValue(try await cookie(user: user, password: password), forHTTPHeaderField: "Cookie")
        }
        let (data, urlResponse): (Data, URLResponse)
        do {
            (data, urlResponse) = try await session.data(for: request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            let target = request.url?.absoluteString ?? path
            throw PeerFailure(status: nil, error: "transport", reason: "\(method) \(target): \(error.localizedDescription)")
        }
        let status = (urlResponse as? HTTPURLResponse)?.statusCode ?? 0
        let json = data.isEmpty ? nil : try? JSONValue(parsing: data)
        return Response(status: status, body: json)
    }

    /// Logs in with `POST /_session` and keeps the cookie.
    private func cookie(user: String, password: String) async throws -> String {
        if let sessionCookie { return sessionCookie }
        var request = URLRequest(url: try url("/_session", query: []))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object(["name": .string(user), "password": .string(password)]).jsonBytes())
        let (_, response): (Data, URLResponse)
        do {
            (_, response) = try await session.data(for: request)
        } catch {
            throw PeerFailure(status: nil, error: "transport", reason: "POST /_session: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode),
            let setCookie = http.value(forHTTPHeaderField: "Set-Cookie"),
            let pair = setCookie.split(separator: ";").first, pair.hasPrefix("AuthSession=")
        else {
            throw PeerFailure(
                status: (response as? HTTPURLResponse)?.statusCode ?? 401, error: "unauthorized",
                reason: "The server refused the session login for \(user).")
        }
        sessionCookie = String(pair)
        return String(pair)
    }

    /// The URL of `path` (relative to the database; `/…` is relative to the server root).
    private func url(_ path: String, query: [(String, String)]) throws -> URL {
        guard var components = URLComponents(url: database, resolvingAgainstBaseURL: false) else {
            throw PeerFailure(status: nil, error: "bad_url", reason: "Cannot use \(database) as a database URL.")
        }
        let base = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        if path.hasPrefix("/") {
            components.percentEncodedPath = path
        } else {
            components.percentEncodedPath = path.isEmpty ? base : base + "/" + path
        }
        components.user = nil
        components.password = nil
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        guard let url = components.url else {
            throw PeerFailure(status: nil, error: "bad_url", reason: "Cannot build a URL for \(path).")
        }
        return url
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Percent-encodes a path segment or query value (everything but unreserved characters).
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
