internal import CloudantCore
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore

/// The dashboard's way to the data: it calls the CouchDB API of the same server, in process, as the user
/// who asked for the page. Every page therefore sees exactly what that user may see through the API, with
/// the API's validation and its error messages; the dashboard has no second path into the stores.
struct DashboardAPI: Sendable {
    let endpoint: CouchEndpoint
    /// The dashboard request whose user, address and authority the calls carry.
    let origin: CouchRequest

    /// What one API call answered.
    struct Answer: Sendable {
        var status: Int
        var body: JSONValue
        var headers: HTTPFields

        var isSuccess: Bool { (200..<300).contains(status) }
        /// CouchDB's `reason` (or `error`) of a failure, for a page to show.
        var reason: String {
            body["reason"]?.stringValue ?? body["error"]?.stringValue ?? "HTTP \(status)"
        }
        /// CouchDB's `error` of a failure (`conflict`, `not_found`…).
        var error: String? { body["error"]?.stringValue }
    }

    /// Calls `method path?query` with an optional JSON body and returns the status and parsed JSON answer.
    func call(
        _ method: HTTPRequest.Method, _ segments: [String], query: [(String, String)] = [], json: JSONValue? = nil
    ) async -> Answer {
        await send(
            method, segments, query: query, body: json?.jsonBytes() ?? [],
            contentType: json == nil ? nil : "application/json")
    }

    /// Calls `method path?query` with `body` of `contentType` (an attachment's bytes).
    func send(
        _ method: HTTPRequest.Method, _ segments: [String], query: [(String, String)] = [], body: [UInt8],
        contentType: String?
    ) async -> Answer {
        var headers = HTTPFields()
        headers[.accept] = "application/json"
        if let contentType { headers[.contentType] = contentType }
        var request = CouchRequest(
            method: method, segments: segments, query: QueryParameters(rawQuery: Self.queryString(query)),
            headers: headers, body: body, bodyStream: nil, user: origin.user,
            authority: origin.authority, connection: origin.connection, bodyLimit: endpoint.configuration.maxRequestBodySize)
        request.session = origin.session
        let answer = await answer(request)
        endpoint.auditDashboardCall(request, status: answer.status, etag: answer.headers[.eTag])
        return answer
    }

    private func answer(_ request: CouchRequest) async -> Answer {
        do {
            let response = try await endpoint.route(request)
            if request.segments.first == endpoint.usersDatabase, request.method != .get {
                await endpoint.usersFollower.catchUp()
            }
            let bytes = try await Self.collect(response.body)
            let body = (try? JSONValue(parsing: bytes)) ?? .null
            return Answer(status: Int(response.status.code), body: body, headers: response.headers)
        } catch let failure as HTTPFailure {
            return Answer(status: failure.body.status, body: failure.body.json, headers: HTTPFields())
        } catch {
            return Answer(status: CouchErrorBody(error).status, body: CouchErrorBody(error).json, headers: HTTPFields())
        }
    }

    /// `name=value&…` with every byte outside RFC 3986's unreserved set percent-encoded.
    static func queryString(_ pairs: [(String, String)]) -> String {
        pairs.map { percentEncoded($0.0) + "=" + percentEncoded($0.1) }.joined(separator: "&")
    }

    /// `text` percent-encoded as CouchDB writes ids in URIs: safe in a path segment and in a query value.
    static func percentEncoded(_ text: String) -> String { URLEncoding.couchDB(text) }

    /// The bytes of a response body (API answers are small JSON, already in memory).
    private static func collect(_ body: ResponseBody) async throws -> [UInt8] {
        let sink = ByteSink()
        try await body.write(CollectingWriter(sink: sink))
        return sink.bytes
    }
}

/// Where ``CollectingWriter`` puts what it is given.
private final class ByteSink: @unchecked Sendable {
    // Written by one body writer at a time, read after it finished.
    var bytes: [UInt8] = []
}

private struct CollectingWriter: ResponseBodyWriter {
    let sink: ByteSink

    mutating func write(_ buffer: ByteBuffer) async throws {
        sink.bytes.append(contentsOf: buffer.readableBytesView)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
