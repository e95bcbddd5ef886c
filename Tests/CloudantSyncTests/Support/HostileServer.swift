import CloudantCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that answers however a test tells it to, including the ways a broken
/// or hostile peer does: a body that never ends, one byte every few seconds, an HTML page where JSON belongs,
/// a redirect to another host, a connection closed mid-answer.
///
/// Each connection runs on a thread of its own with blocking sockets, so an answer can pause between bytes
/// without holding up anything else; requests on a kept-alive connection are answered in turn. Every request
/// is recorded (``requests``) for the test to inspect.
final class HostileServer: Sendable {
    /// A request as it arrived.
    struct Request: Sendable {
        var method: String
        /// The path, percent-decoded.
        var path: String
        /// The query's parameters, percent-decoded.
        var query: [String: String]
        /// Header fields, names lowercased.
        var headers: [String: String]
        var body: Data

        /// The body as JSON, when it is.
        var json: JSONValue? { try? JSONValue(parsing: body) }
    }

    /// How to answer a request.
    enum Answer: Sendable {
        /// `status` with a JSON body (`Content-Type: application/json`).
        case json(Int, JSONValue)
        /// `status` with these header fields and body (a `Content-Length` is added).
        case raw(Int, headers: [(String, String)], body: Data)
        /// A `200` JSON head, then `prefix`, then `filler` repeated for as long as the client reads (chunked),
        /// `interval` apart.
        case endless(prefix: Data, filler: Data, interval: Duration = .zero)
        /// A `200` JSON head declaring `body`'s length, then its bytes one at a time, `interval` apart.
        case trickle(body: Data, interval: Duration)
        /// A `307` (or other) redirect to `location`.
        case redirect(Int, location: String)
        /// Close the connection without answering.
        case hangUp
    }

    typealias Responder = @Sendable (Request) -> Answer

    private let listener: Int32
    private let responder: Responder
    private let recorded = Mutex<[Request]>([])
    private let stopped = Mutex(false)
    /// Connections being served, shut down by ``stop()`` so no thread waits on a client that keeps it alive.
    private let open = Mutex<Set<Int32>>([])
    /// The port it listens on.
    let port: Int

    /// The base URL, `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Every request so far, in order of arrival.
    var requests: [Request] { recorded.withLock { $0 } }

    /// Starts listening on a free port; `responder` answers each request (on the connection's thread).
    init(_ responder: @escaping Responder) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        self.responder = responder
        let accepting = Thread { [self] in acceptLoop() }
        accepting.start()
    }

    /// Stops accepting and ends the connections in progress. Call it once the test is done with the server.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in open.withLock({ $0 }) { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            open.withLock { _ = $0.insert(connection) }
            if stopped.withLock({ $0 }) { shutdown(connection, Int32(SHUT_RDWR)) }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            open.withLock { _ = $0.remove(connection) }
            close(connection)
        }
        var buffer: [UInt8] = []
        while let request = Self.readRequest(connection, &buffer) {
            recorded.withLock { $0.append(request) }
            guard Self.write(responder(request), to: connection) else { return }
        }
    }

    // MARK: Reading requests

    private static func readRequest(_ connection: Int32, _ buffer: inout [UInt8]) -> Request? {
        while buffer.firstRange(of: [13, 10, 13, 10]) == nil {
            guard receive(connection, into: &buffer) else { return nil }
        }
        guard let headEnd = buffer.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<headEnd.upperBound)
        var lines = head.components(separatedBy: "\r\n")
        let start = lines.removeFirst().split(separator: " ")
        guard start.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "") ?? 0
        while buffer.count < length {
            guard receive(connection, into: &buffer) else { return nil }
        }
        let body = Data(buffer[..<length])
        buffer.removeSubrange(..<length)
        let target = String(start[1])
        let components = URLComponents(string: target)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return Request(
            method: String(start[0]), path: components?.path ?? target, query: query, headers: headers, body: body)
    }

    private static func receive(_ connection: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    // MARK: Writing answers

    /// Writes `answer`; false when the connection is to be closed (or the client left).
    private static func write(_ answer: Answer, to connection: Int32) -> Bool {
        switch answer {
        case .json(let status, let value):
            return send(status, [("Content-Type", "application/json")], Data(value.jsonBytes()), to: connection)
        case .raw(let status, let headers, let body):
            return send(status, headers, body, to: connection)
        case .redirect(let status, let location):
            return send(status, [("Location", location), ("Content-Type", "application/json")], Data("{}".utf8), to: connection)
        case .hangUp:
            return false
        case .endless(let prefix, let filler, let interval):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            guard raw(Data(head.utf8), to: connection), chunk(prefix, to: connection) else { return false }
            while chunk(filler, to: connection) {
                if interval > .zero { Thread.sleep(forTimeInterval: seconds(interval)) }
            }
            return false
        case .trickle(let body, let interval):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
            guard raw(Data(head.utf8), to: connection) else { return false }
            for byte in body {
                Thread.sleep(forTimeInterval: seconds(interval))
                guard raw(Data([byte]), to: connection) else { return false }
            }
            return true
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func send(_ status: Int, _ headers: [(String, String)], _ body: Data, to connection: Int32) -> Bool {
        var head = "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return raw(Data(head.utf8) + body, to: connection)
    }

    private static func chunk(_ data: Data, to connection: Int32) -> Bool {
        raw(Data(String(data.count, radix: 16).utf8) + Data("\r\n".utf8) + data + Data("\r\n".utf8), to: connection)
    }

    private static func raw(_ data: Data, to connection: Int32) -> Bool {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { bytes in
                Glibc.send(connection, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

extension HostileServer {
    /// The answers of an honest, empty-handed source database `db` around the one route a test makes hostile:
    /// its info, no checkpoint (and checkpoints accepted), and whatever `route` answers (nil for the honest
    /// default: a 404).
    static func source(db: String = "db", _ route: @escaping @Sendable (Request) -> Answer?) throws -> HostileServer {
        try HostileServer { request in
            if let answer = route(request) { return answer }
            if request.path == "/\(db)" { return .json(200, ["db_name": .string(db), "update_seq": "1", "instance_start_time": "0"]) }
            if request.path.hasPrefix("/\(db)/_local/") {
                return request.method == "GET" ? .json(404, ["error": "not_found", "reason": "missing"]) : .json(201, ["ok": true])
            }
            if request.path == "/\(db)/_ensure_full_commit" { return .json(201, ["ok": true]) }
            return .json(404, ["error": "not_found", "reason": "missing"])
        }
    }

    /// A source database `db` whose `_changes` lists `rows` as (id, leaves) and whose `_bulk_get` answers with
    /// `documents`, whatever was asked: the shape of the attacks on what a fetch brings back.
    static func source(db: String = "db", changes rows: [(String, [String])], bulkGet documents: [JSONObject]) throws
        -> HostileServer
    {
        let (feed, fetched) = (changes(rows), bulkGet(documents))
        return try source(db: db) { request in
            switch request.path {
            case "/\(db)/_changes": .json(200, feed)
            case "/\(db)/_bulk_get": .json(200, fetched)
            default: nil
            }
        }
    }

    /// A `_changes` answer listing `rows` as (id, leaves), with sequences 1, 2, …
    static func changes(_ rows: [(String, [String])]) -> JSONValue {
        [
            "results": .array(
                rows.enumerated().map { index, row in
                    ["seq": .string("\(index + 1)-x"), "id": .string(row.0), "changes": .array(row.1.map { ["rev": .string($0)] })]
                }),
            "last_seq": .string("\(rows.count)-x"), "pending": 0,
        ]
    }

    /// A `_bulk_get` answer holding `documents` (each as its own result).
    static func bulkGet(_ documents: [JSONObject]) -> JSONValue {
        [
            "results": .array(
                documents.map { document in
                    ["id": document["_id"] ?? .null, "docs": [["ok": .object(document)]]]
                })
        ]
    }

    /// A revision with its `_revisions`, generation 1.
    static func document(_ id: String, hash: String = "0123456789abcdef0123456789abcdef", _ members: JSONObject = [:]) -> JSONObject {
        var document: JSONObject = ["_id": .string(id), "_rev": .string("1-" + hash), "_revisions": ["start": 1, "ids": [.string(hash)]]]
        for (key, value) in members.members { document[key] = value }
        return document
    }
}
