// Fuzz target: what the server does with a raw HTTP request (CloudantServer): target and segment
// parsing, percent-decoding, query parameters, headers (authentication, content type and encoding,
// ranges), JSON and multipart bodies, and every route behind them, against a real endpoint with real
// SQLite databases in a temporary folder.
//
// An input is a raw HTTP/1.1 request: request line, headers, a blank line, the body. The harness splits
// it the way SwiftNIO's parser hands it to Hummingbird (an input no HTTP parser could read is left out
// of the corpus; the live-server check in CI covers those) and calls the endpoint. Invariants:
// - the endpoint never traps and always answers (libFuzzer's -timeout catches a hang);
// - no request gets a 5xx: a malformed or hostile request is the client's fault, a 4xx;
// - every error answer (4xx) has a JSON object body with string "error" and "reason" members;
// - every JSON success answer is well-formed JSON;
// - no request is left running once its answer is written.
//
// State: the databases persist between inputs, as a server's do; every 256 inputs the databases the
// fuzzer created are deleted so that the folder and the open files stay bounded.

@testable import CloudantServer
import CloudantCore
import CloudantStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The endpoint under test and the inputs run against it; touched only from libFuzzer's thread.
nonisolated(unsafe) private var endpoint: CouchEndpoint?
nonisolated(unsafe) private var inputsSinceCleanup = 0

/// The databases the seed corpus uses, prepared once and never deleted.
private let baseDatabases: Set<String> = ["_users", "db", "part"]
private let adminAuthorization = "Basic " + Data("admin:admin".utf8).base64EncodedString()

@_cdecl("LLVMFuzzerInitialize")
public func initializeRequestFuzzing(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>>>) -> CInt {
    let folder = NSTemporaryDirectory() + "cloudant-fuzz-request-\(getpid())"
    try? FileManager.default.removeItem(atPath: folder)
    let configuration = ServerConfiguration(
        host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder), admin: ServerAdmin(name: "admin", password: "admin"),
        maxRequestBodySize: 1 << 20, passwordIterations: 1, regexStepLimit: 200_000, changesTimeout: 20,
        loginThrottle: LoginThrottlePolicy(maxFailuresPerUser: .max, maxFailuresPerAddress: .max, window: 1))
    do {
        endpoint = try CouchEndpoint(configuration: configuration)
    } catch {
        require(false, "the endpoint starts (\(error))")
    }
    // Removed at exit, also when libFuzzer stops on a crash (it calls exit, not abort, after saving it).
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "cloudant-fuzz-request-\(getpid())") }
    for (method, target, body) in setupRequests {
        let (status, _, _) = send(method: method, target: target, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        require(status < 300, "the fuzz fixture request \(method) \(target) succeeds (got \(status))")
    }
    return 0
}

/// What the seed corpus refers to: a database with documents, a design document, an index, an
/// attachment and a local document, and a partitioned database.
private let setupRequests: [(String, String, String)] = [
    ("PUT", "/db", ""),
    ("PUT", "/db/doc1", #"{"name":"Alice","age":30,"tags":["x","y"]}"#),
    ("PUT", "/db/doc2", #"{"name":"bob","age":"30","nested":{"a":[1,2,3]}}"#),
    ("PUT", "/db/_design/d", #"{"language":"query","views":{}}"#),
    ("POST", "/db/_index", #"{"index":{"fields":["age"]},"name":"by-age","ddoc":"by-age"}"#),
    ("PUT", "/db/_local/checkpoint", #"{"session_id":"s","history":[]}"#),
    ("PUT", "/db/withatt", #"{"_attachments":{"a.txt":{"content_type":"text/plain","data":"aGVsbG8="}}}"#),
    ("PUT", "/part?partitioned=true", ""),
    ("PUT", "/part/p1:doc", #"{"v":1}"#),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let request = RawRequest(Array(UnsafeBufferPointer(start: data, count: size))) else { return rejectInput }
    let (status, contentType, body) = send(
        method: request.method, target: request.target, headers: request.headers, body: request.body)
    require(status >= 100 && status < 500, "a request is never answered with a 5xx (got \(status))")
    let isJSON = contentType?.hasPrefix("application/json") == true
    if status >= 400, request.method != "HEAD" {
        require(isJSON, "an error answer is JSON (got \(contentType ?? "no content type"))")
        let object = (try? JSONValue(parsing: body))?.objectValue
        require(object?["error"]?.stringValue != nil, "an error answer has a string \"error\"")
        require(object?["reason"]?.stringValue != nil, "an error answer has a string \"reason\"")
    } else if isJSON, !body.isEmpty, !isStreamedFeed(request.target) {
        require((try? JSONValue(parsing: body)) != nil, "a JSON answer is well-formed JSON")
    }
    require(endpoint?.requestsInProgress.withLock({ $0 }) == 0, "no request is left running")

    inputsSinceCleanup += 1
    if inputsSinceCleanup >= 256 {
        inputsSinceCleanup = 0
        deleteCreatedDatabases()
    }
    return keepInput
}

/// Continuous and eventsource feeds write several JSON texts, one per line.
private func isStreamedFeed(_ target: String) -> Bool {
    target.contains("_changes") && (target.contains("continuous") || target.contains("eventsource"))
}

private func deleteCreatedDatabases() {
    let (_, _, body) = send(method: "GET", target: "/_all_dbs", headers: [], body: [])
    for name in (try? JSONValue(parsing: body))?.arrayValue?.compactMap(\.stringValue) ?? [] where !baseDatabases.contains(name) {
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        _ = send(method: "DELETE", target: "/" + escaped, headers: [], body: [])
    }
}

/// Sends one request to the endpoint as Hummingbird would hand it over; the admin's credentials are
/// added unless the request brings its own `Authorization` (or a cookie).
private func send(method: String, target: String, headers: [(String, String)], body: [UInt8]) -> (Int, String?, [UInt8]) {
    guard let endpoint, let method = HTTPRequest.Method(method) else { return (400, nil, []) }
    var fields = HTTPFields()
    var authority: String?
    for (name, value) in headers {
        // HTTPTypes carries `Host` as the request's authority, as SwiftNIO's HTTP/1 decoding does.
        if name.lowercased() == "host" {
            authority = value
            continue
        }
        guard let name = HTTPField.Name(name) else { continue }
        fields.append(HTTPField(name: name, value: value))
    }
    if fields[.authorization] == nil, fields[.cookie] == nil {
        fields[.authorization] = adminAuthorization
    }
    let head = HTTPRequest(method: method, scheme: nil, authority: authority, path: target, headerFields: fields)
    let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body)))
    return runBlocking {
        let response = await endpoint.respond(to: request)
        let collector = Collected()
        try? await response.body.write(CollectingWriter(collected: collector))
        return (response.status.code, response.headers[.contentType], collector.bytes)
    }
}

/// A raw HTTP/1.1 request split into its parts.
private struct RawRequest {
    var method: String
    var target: String
    var headers: [(String, String)] = []
    var body: [UInt8]

    init?(_ bytes: [UInt8]) {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd = bytes.count
        var bodyStart = bytes.count
        if bytes.count >= 4 {
            for index in 0...(bytes.count - 4) where bytes[index..<(index + 4)].elementsEqual(separator) {
                headEnd = index
                bodyStart = index + 4
                break
            }
        }
        guard let head = String(validating: bytes[..<headEnd], as: UTF8.self) else { return nil }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), !requestLine[1].isEmpty else { return nil }
        // A method that is not an HTTP token never gets past the parser.
        guard HTTPRequest.Method(String(requestLine[0])) != nil else { return nil }
        method = String(requestLine[0])
        target = String(requestLine[1])
        var declaredLength: Int?
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name.lowercased() == "transfer-encoding" { continue }
            if name.lowercased() == "content-length" { declaredLength = Int(value) }
            headers.append((name, value))
        }
        body = Array(bytes[bodyStart...])
        // The parser hands over exactly Content-Length bytes; a shorter body would still be on its way.
        if let declaredLength, declaredLength >= 0, declaredLength < body.count { body = Array(body.prefix(declaredLength)) }
    }
}

/// The bytes of a response body; filled by one writer on one task at a time.
private final class Collected: @unchecked Sendable {
    var bytes: [UInt8] = []
    var firstWrite: ContinuousClock.Instant?
}

/// Raised by the collecting client when it stops reading.
private struct ClientWentAway: Error {}

/// A client that reads the body, and goes away after a second or a few megabytes as every real client
/// eventually does: a continuous feed with heartbeats stays open until then (CouchDB's rule), which libFuzzer's
/// `-timeout` would otherwise report as a hang.
private struct CollectingWriter: ResponseBodyWriter {
    let collected: Collected

    mutating func write(_ buffer: ByteBuffer) async throws {
        collected.bytes += buffer.readableBytesView
        let first = collected.firstWrite ?? .now
        collected.firstWrite = first
        if ContinuousClock.now - first > .seconds(1) || collected.bytes.count > 4 << 20 { throw ClientWentAway() }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// A result handed from a task to the waiting thread; written once before the semaphore signals.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// Runs async work from libFuzzer's (synchronous) thread and waits for its result.
private func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    guard let value = box.value else { fatalError("runBlocking: the work finished without a value") }
    return value
}
