public import CloudantCore
public import Foundation

/// One HTTP answer.
public struct HTTPAnswer: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields as received (a repeated field keeps its last value).
    public var headers: [String: String]
    /// The body, de-chunked.
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as JSON (`.null` when it is not JSON).
    public var json: JSONValue { (try? JSONValue(parsing: body)) ?? .null }

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// A header, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// A real HTTP/1.1 client over TCP, one connection per request (`Connection: close`), with basic auth or
/// a cookie.
///
/// Foundation's URLSession on Linux hung intermittently here (HEAD requests and 401 challenges under
/// parallel tests), so the tests speak HTTP themselves; each request runs on its own thread so blocking
/// socket calls never hold the cooperative pool the server needs.
public struct TestClient: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    /// Basic-auth credentials, if any.
    public let user: (String, String)?
    /// A `Cookie` header value (`AuthSession=…`) sent with each request, if any.
    public var cookie: String?

    public init(baseURL: String, user: (String, String)?, cookie: String? = nil) {
        self.baseURL = baseURL
        self.user = user
        self.cookie = cookie
    }

    private var port: Int { Int(baseURL.split(separator: ":").last ?? "0") ?? 0 }

    /// Sends a request; `json` bodies get `Content-Type: application/json`.
    /// - Throws: `URLError` when the connection fails or the answer is not HTTP.
    public func send(
        _ method: String, _ path: String, json: JSONValue? = nil, body: Data? = nil, contentType: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPAnswer {
        var fields = ["Host": "127.0.0.1", "Connection": "close"]
        var payload = [UInt8]()
        if let json {
            payload = json.jsonBytes()
            fields["Content-Type"] = "application/json"
        } else if let body {
            payload = Array(body)
        }
        if let contentType { fields["Content-Type"] = contentType }
        if !payload.isEmpty || ["POST", "PUT"].contains(method) { fields["Content-Length"] = String(payload.count) }
        if let (name, password) = user {
            fields["Authorization"] = "Basic " + Data("\(name):\(password)".utf8).base64EncodedString()
        }
        if let cookie { fields["Cookie"] = cookie }
        for (name, value) in headers { fields[name] = value }
        var request = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in fields { request += "\(name): \(value)\r\n" }
        let bytes = Array((request + "\r\n").utf8) + payload
        let port = port
        let raw = try await onOwnThread {
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            connection.send(bytes)
            return try connection.readToEnd()
        }
        return try Self.parse(raw, isHead: method == "HEAD")
    }

    public func get(_ path: String, headers: [String: String] = [:]) async throws -> HTTPAnswer {
        try await send("GET", path, headers: headers)
    }

    public func put(_ path: String, _ json: JSONValue) async throws -> HTTPAnswer { try await send("PUT", path, json: json) }

    public func post(_ path: String, _ json: JSONValue) async throws -> HTTPAnswer { try await send("POST", path, json: json) }

    public func delete(_ path: String) async throws -> HTTPAnswer { try await send("DELETE", path) }

    /// Splits a whole response into status, headers and (de-chunked) body.
    public static func parse(_ raw: [UInt8], isHead: Bool) throws -> HTTPAnswer {
        guard let end = raw.firstRange(of: [13, 10, 13, 10]) else { throw URLError(.badServerResponse) }
        let lines = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(raw[end.upperBound...])
        if isHead { body = [] }
        let chunked = headers.contains { $0.key.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }
        if chunked { body = dechunk(body) }
        return HTTPAnswer(status: status, headers: headers, body: Data(body))
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while let lineEnd = bytes[index...].firstRange(of: [13, 10]) {
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { break }
            out.append(contentsOf: bytes[start..<(start + size)])
            index = start + size + 2
            if index >= bytes.count { break }
        }
        return out
    }
}
