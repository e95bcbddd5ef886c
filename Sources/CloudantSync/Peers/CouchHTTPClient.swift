internal import CloudantCore
internal import Foundation

/// The HTTP requests an ``HTTPPeer`` makes: JSON in, JSON out, authentication applied, and every failure
/// turned into a `CloudantError` with a peer code the retry policy can classify. The bytes travel over an
/// ``HTTPTransport`` (``URLSessionTransport`` unless the peer was given another), within the peer's
/// ``PeerLimits``; a successful answer that is not JSON (by its media type or its bytes) is a
/// ``PeerViolation``, never an empty success.
actor CouchHTTPClient {
    let database: URL
    let authentication: RemoteAuthentication
    let headers: [String: String]
    let timeout: TimeInterval
    let limits: PeerLimits
    private let transport: any HTTPTransport
    /// The `AuthSession` cookie of a cookie session.
    private var sessionCookie: String?

    init(
        database: URL, authentication: RemoteAuthentication, headers: [String: String], timeout: TimeInterval,
        limits: PeerLimits = PeerLimits(), transport: any HTTPTransport
    ) {
        self.database = database
        self.authentication = authentication
        self.headers = headers
        self.timeout = timeout
        self.limits = limits
        self.transport = transport
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
    /// - Parameter timeout: The wait for the answer to begin, when longer than the client's: a long poll's.
    ///   The pace of the answer (``PeerLimits/minimumTransferRate``) counts only once it is over.
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
        throw CloudantError.answer(
            url: response.url, status: response.status, error: response.body?["error"]?.stringValue,
            reason: response.body?["reason"]?.stringValue ?? "HTTP \(response.status) from \(method) \(response.url.path)")
    }

    private func perform(
        _ method: String, _ path: String, query: [(String, String)], body: JSONValue?, timeout: TimeInterval?,
        contentType: String?
    ) async throws -> Response {
        let request = try await makeRequest(method, path, query: query, body: body, timeout: timeout, contentType: contentType)
        let answer: HTTPTransportResponse
        do {
            answer = try await transport.send(request)
        } catch {
            throw Self.transportFailure(error, method: method, url: request.url)
        }
        return Response(url: request.url, status: answer.status, body: try Self.json(of: answer, url: request.url))
    }

    /// The JSON of an answer: strictly for a success (a media type other than JSON's, or bytes that do not
    /// parse, are a ``PeerViolation``); as well as it can for an error status, whose body only explains it.
    static func json(of answer: HTTPTransportResponse, url: URL) throws -> JSONValue? {
        guard (200..<300).contains(answer.status) else {
            return answer.body.isEmpty ? nil : try? JSONValue(parsing: answer.body)
        }
        if let type = answer.header("Content-Type") {
            let media = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            // CouchDB answers `text/plain` to clients that do not ask for JSON; anything else (a proxy's HTML
            // page, a multipart body) is not the answer asked for.
            guard media == "application/json" || media.hasSuffix("+json") || media == "text/plain" || media.isEmpty else {
                throw CloudantError.peerViolation(url: url, violation: .unexpectedMediaType(media))
            }
        }
        guard !answer.body.isEmpty else { return nil }
        do {
            // Documents sit a few levels inside an answer (`_bulk_get`: results, docs, ok): allow for them here,
            // and check each document's own depth where it is taken out.
            return try JSONValue(parsing: answer.body, maximumDepth: JSONValue.maximumNestingDepth + envelopeDepth)
        } catch {
            let reason = (error as? CloudantError).map { error in
                error.message + (error.context.position.map { " (byte \($0))" } ?? "")
            }
            throw CloudantError.peerViolation(url: url, violation: .notJSON(reason: reason ?? "\(error)"))
        }
    }

    /// The levels an answer may wrap a document in.
    static let envelopeDepth = 8

    /// `GET path` with its body written to a file as it arrives (never held whole in memory): an attachment
    /// a replication moves separately. The caller owns (and removes) the file.
    /// - Throws: `CloudantError` as ``send(_:_:query:body:accept:timeout:contentType:)`` throws, for a
    ///   status other than 2xx or a transport failure.
    func download(_ path: String, query: [(String, String)] = [], accept: String, expectedLength: Int? = nil) async throws -> URL {
        var attempt = 0
        while true {
            var request = try await makeRequest("GET", path, query: query, body: nil, timeout: nil, contentType: nil)
            request.limits = transferLimits(grace: nil, body: expectedLength)
            request.setHeader("Accept", accept)
            // Ask for the content as written: a gzip body would be inflated on the way anyway.
            request.setHeader("Accept-Encoding", "identity")
            let answer: HTTPTransportDownload
            do {
                answer = try await transport.download(request)
            } catch {
                throw Self.transportFailure(error, method: "GET", url: request.url)
            }
            if (200..<300).contains(answer.status) { return answer.file }
            let body = try? JSONValue(parsing: Data(contentsOf: answer.file))
            try? FileManager.default.removeItem(at: answer.file)
            if answer.status == 401, case .session = authentication, attempt == 0 {
                sessionCookie = nil  // Expired: log in again once.
                attempt += 1
                continue
            }
            throw CloudantError.answer(
                url: request.url, status: answer.status, error: body?["error"]?.stringValue,
                reason: body?["reason"]?.stringValue ?? "HTTP \(answer.status) from GET \(request.url.path)")
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
            if let size { request.setHeader("Content-Length", String(size)) }
            let answer: HTTPTransportResponse
            do {
                answer = try await transport.upload(request, fromFile: file)
            } catch {
                throw Self.transportFailure(error, method: method, url: request.url)
            }
            let body = try Self.json(of: answer, url: request.url)
            if answer.status == 401, case .session = authentication, attempt == 0 {
                sessionCookie = nil  // Expired: log in again once.
                attempt += 1
                continue
            }
            if (200..<300).contains(answer.status) || accept.contains(answer.status) {
                return Response(url: request.url, status: answer.status, body: body)
            }
            throw CloudantError.answer(
                url: request.url, status: answer.status, error: body?["error"]?.stringValue,
                reason: body?["reason"]?.stringValue ?? "HTTP \(answer.status) from \(method) \(request.url.path)")
        }
    }

    /// The request for `path`, with the JSON body, the client's headers and its credentials.
    private func makeRequest(
        _ method: String, _ path: String, query: [(String, String)], body: JSONValue?, timeout: TimeInterval?,
        contentType: String?
    ) async throws -> HTTPTransportRequest {
        let target = try url(path, query: query)
        var request = HTTPTransportRequest(
            method: method, url: target, timeout: timeout ?? self.timeout, limits: transferLimits(grace: timeout, body: nil))
        request.setHeader("Accept", "application/json")
        if let body {
            request.body = Data(body.jsonBytes())
            request.setHeader("Content-Type", "application/json")
        } else if let contentType {
            request.setHeader("Content-Type", contentType)
        }
        for (name, value) in headers { request.setHeader(name, value) }
        if let authorization = authentication.authorizationHeader {
            request.setHeader("Authorization", authorization)
        } else if case .session(let user, let password) = authentication {
            request.setHeader("Cookie", try await cookie(user: user, password: password, for: target))
        }
        return request
    }

    /// The limits of one answer: a JSON answer's size, or an attachment's stated length (`body`) and the time it
    /// takes at the slowest pace; the pace counts after `grace` seconds (a long poll's wait).
    private func transferLimits(grace: TimeInterval?, body expected: Int?) -> TransferLimits {
        let grace = Duration.milliseconds(Int64((grace ?? 0) * 1000))
        var deadline = limits.requestDeadline + grace
        if let expected, limits.minimumTransferRate > 0 { deadline += .seconds(expected / limits.minimumTransferRate) }
        return TransferLimits(
            maximumBodySize: expected ?? limits.maximumBodySize, minimumRate: limits.minimumTransferRate,
            rateWindow: limits.rateWindow, rateGrace: grace, deadline: deadline)
    }

    /// Logs in with `POST /_session` and keeps the cookie.
    /// - Throws: `CloudantError.Code.peerRefused` (401, or the status the login was refused with) naming
    ///   `target`, the request that needed the session, when the server refuses the login.
    private func cookie(user: String, password: String, for target: URL) async throws -> String {
        if let sessionCookie { return sessionCookie }
        let login = try url("/_session", query: [])
        let request = HTTPTransportRequest(
            method: "POST", url: login, headers: [("Content-Type", "application/json")],
            body: Data(JSONValue.object(["name": .string(user), "password": .string(password)]).jsonBytes()),
            timeout: timeout, limits: transferLimits(grace: nil, body: nil))
        let answer: HTTPTransportResponse
        do {
            answer = try await transport.send(request)
        } catch {
            throw Self.transportFailure(error, method: "POST", url: login)
        }
        guard (200..<300).contains(answer.status), let setCookie = answer.header("Set-Cookie"),
            let pair = setCookie.split(separator: ";").first, pair.hasPrefix("AuthSession=")
        else {
            throw CloudantError.peerRefused(
                url: target, status: (200..<300).contains(answer.status) ? 401 : answer.status, error: "unauthorized",
                reason: "The server refused the session login for \(user) (POST /_session answered \(answer.status)).")
        }
        sessionCookie = String(pair)
        return String(pair)
    }

    /// The URL of `path` (relative to the database; `/…` is relative to the server root).
    private func url(_ path: String, query: [(String, String)]) throws -> URL {
        guard var components = URLComponents(url: database, resolvingAgainstBaseURL: false) else {
            throw CloudantError(.invalidInput, "Cannot use \(database) as a database URL.", context: .init(field: "url", url: database))
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
            throw CloudantError(.invalidInput, "Cannot build a URL for \(path).", context: .init(field: "url", url: database))
        }
        return url
    }

    /// What a request that got no answer becomes: the transport's `CloudantError` naming this request, or for
    /// another error (a transport of the app's own) cancellation or an unreachable peer.
    private static func transportFailure(_ error: any Error, method: String, url: URL) -> CloudantError {
        HTTPTransportError.failure(error, of: HTTPTransportRequest(method: method, url: url)).concerning(url)
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Percent-encodes a path segment or query value (everything but unreserved characters).
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
