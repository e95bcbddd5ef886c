internal import CloudantCore
internal import Foundation
#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif

/// The HTTP requests an ``HTTPPeer`` makes: JSON in, JSON out, authentication applied, and every failure
/// turned into a ``ReplicationError`` the retry policy can classify. TLS is URLSession's (libcurl on Linux).
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

    /// A response: the URL asked (without credentials), the status and the parsed JSON body (nil when empty).
    struct Response {
        var url: URL
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
        throw ReplicationError.answer(
            url: response.url, status: response.status, error: response.body?["error"]?.stringValue,
            reason: response.body?["reason"]?.stringValue ?? "HTTP \(response.status) from \(method) \(path)")
    }

    private func perform(
        _ method: String, _ path: String, query: [(String, String)], body: JSONValue?, timeout: TimeInterval?,
        contentType: String?
    ) async throws -> Response {
        let request = try await makeRequest(method, path, query: query, body: body, timeout: timeout, contentType: contentType)
        let target = request.url ?? database
        let (data, urlResponse): (Data, URLResponse)
        do {
            (data, urlResponse) = try await session.data(for: request)
        } catch {
            throw Self.transportFailure(error, method: method, url: target)
        }
        let status = (urlResponse as? HTTPURLResponse)?.statusCode ?? 0
        let json = data.isEmpty ? nil : try? JSONValue(parsing: data)
        return Response(url: target, status: status, body: json)
    }

    /// `GET path` with its body written to a file as it arrives (never held whole in memory): an attachment
    /// a replication moves separately. The caller owns (and removes) the file.
    /// - Throws: ``ReplicationError`` as ``send(_:_:query:body:accept:timeout:contentType:)`` throws, for a
    ///   status other than 2xx or a transport failure.
    func download(_ path: String, query: [(String, String)] = [], accept: String) async throws -> URL {
        var attempt = 0
        while true {
            var request = try await makeRequest("GET", path, query: query, body: nil, timeout: nil, contentType: nil)
            request.setValue(accept, forHTTPHeaderField: "Accept")
            // Ask for the content as written: a gzip body would be inflated by libcurl on the way anyway.
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            let target = request.url ?? database
            let (file, urlResponse): (URL, URLResponse)
            do {
                (file, urlResponse) = try await session.download(for: request)
            } catch {
                throw Self.transportFailure(error, method: "GET", url: target)
            }
            let status = (urlResponse as? HTTPURLResponse)?.statusCode ?? 0
            if (200..<300).contains(status) { return file }
            let body = try? JSONValue(parsing: Data(contentsOf: file))
            try? FileManager.default.removeItem(at: file)
            if status == 401, case .session = authentication, attempt == 0 {
                sessionCookie = nil  // Expired: log in again once.
                attempt += 1
                continue
            }
            throw ReplicationError.answer(
                url: target, status: status, error: body?["error"]?.stringValue,
                reason: body?["reason"]?.stringValue ?? "HTTP \(status) from GET \(path)")
        }
    }

    /// Sends `file` as the body of `method path` (streamed from disk, never whole in memory): a document
    /// with large attachments as `multipart/related`. Statuses in `accept` are returned, others thrown as
    /// ``send(_:_:query:body:accept:timeout:contentType:)`` throws them.
    func upload(
        _ method: String, _ path: String, query: [(String, String)] = [], contentType: String, file: URL,
        accept: Set<Int> = []
    ) async throws -> Response {
        var attempt = 0
        while true {
            var request = try await makeRequest(method, path, query: query, body: nil, timeout: nil, contentType: contentType)
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
            if let size { request.setValue(String(size), forHTTPHeaderField: "Content-Length") }
            let target = request.url ?? database
            let (data, urlResponse): (Data, URLResponse)
            do {
                (data, urlResponse) = try await session.upload(for: request, fromFile: file)
            } catch {
                throw Self.transportFailure(error, method: method, url: target)
            }
            let status = (urlResponse as? HTTPURLResponse)?.statusCode ?? 0
            let body = data.isEmpty ? nil : try? JSONValue(parsing: data)
            if status == 401, case .session = authentication, attempt == 0 {
                sessionCookie = nil  // Expired: log in again once.
                attempt += 1
                continue
            }
            if (200..<300).contains(status) || accept.contains(status) { return Response(url: target, status: status, body: body) }
            throw ReplicationError.answer(
                url: target, status: status, error: body?["error"]?.stringValue,
                reason: body?["reason"]?.stringValue ?? "HTTP \(status) from \(method) \(path)")
        }
    }

    /// The request for `path`, with the JSON body, the client's headers and its credentials.
    private func makeRequest(
        _ method: String, _ path: String, query: [(String, String)], body: JSONValue?, timeout: TimeInterval?,
        contentType: String?
    ) async throws -> URLRequest {
        let target = try url(path, query: query)
        var request = URLRequest(url: target)
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
            request.setValue(try await cookie(user: user, password: password, for: target), forHTTPHeaderField: "Cookie")
        }
        return request
    }

    /// Logs in with `POST /_session` and keeps the cookie.
    /// - Throws: ``ReplicationError/unauthorized(url:status:reason:)`` naming `target`, the request that needed
    ///   the session, when the server refuses the login.
    private func cookie(user: String, password: String, for target: URL) async throws -> String {
        if let sessionCookie { return sessionCookie }
        let login = try url("/_session", query: [])
        var request = URLRequest(url: login)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object(["name": .string(user), "password": .string(password)]).jsonBytes())
        let (_, response): (Data, URLResponse)
        do {
            (_, response) = try await session.data(for: request)
        } catch {
            throw Self.transportFailure(error, method: "POST", url: login)
        }
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode),
            let setCookie = http.value(forHTTPHeaderField: "Set-Cookie"),
            let pair = setCookie.split(separator: ";").first, pair.hasPrefix("AuthSession=")
        else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 401
            throw ReplicationError.unauthorized(
                url: target, status: (200..<300).contains(status) ? 401 : status,
                reason: "The server refused the session login for \(user) (POST /_session answered \(status)).")
        }
        sessionCookie = String(pair)
        return String(pair)
    }

    /// The URL of `path` (relative to the database; `/…` is relative to the server root).
    private func url(_ path: String, query: [(String, String)]) throws -> URL {
        guard var components = URLComponents(url: database, resolvingAgainstBaseURL: false) else {
            throw ReplicationError.localFailure(
                url: database,
                underlying: CloudantError(.invalidValue, "Cannot use \(database) as a database URL.", context: .init(field: "url")))
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
            throw ReplicationError.localFailure(
                url: database,
                underlying: CloudantError(.invalidValue, "Cannot build a URL for \(path).", context: .init(field: "url")))
        }
        return url
    }

    /// What a failed `URLSession` request becomes: cancellation, a timeout, or an unreachable peer.
    private static func transportFailure(_ error: any Error, method: String, url: URL) -> ReplicationError {
        if Task.isCancelled || (error as? URLError)?.code == .cancelled { return .cancelled(url: url) }
        if (error as? URLError)?.code == .timedOut { return .timedOut(url: url, status: nil) }
        return .peerUnreachable(url: url, reason: "\(method): \(error.localizedDescription)")
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Percent-encodes a path segment or query value (everything but unreserved characters).
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
