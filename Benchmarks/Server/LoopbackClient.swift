import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 keep-alive client over a blocking socket to 127.0.0.1: cheap enough that a
/// benchmark measures the server, not the client. It understands `Content-Length` responses only.
final class LoopbackClient {
    private let socket: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw URLError(.cannotConnectToHost) }
    }

    deinit { Glibc.close(socket) }

    /// Sends one request and reads the whole response; returns the status code.
    @discardableResult
    func request(_ method: String, _ path: String, body: [UInt8] = [], headers: String = "") throws -> Int {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)"
        if !body.isEmpty || method == "POST" || method == "PUT" {
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        let bytes = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            guard written > 0 else { throw URLError(.networkConnectionLost) }
            sent += written
        }
        return try readResponse()
    }

    private func readResponse() throws -> Int {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.firstRange(of: separator)?.upperBound
            if headerEnd == nil { try fill() }
        }
        guard let end = headerEnd else { throw URLError(.badServerResponse) }
        let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var length = 0
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        while buffer.count < end + length { try fill() }
        buffer.removeFirst(end + length)
        return status
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
        guard count > 0 else { throw URLError(.networkConnectionLost) }
        buffer.append(contentsOf: chunk[..<count])
    }

    /// Runs `work` on `count` dedicated threads (not the cooperative pool, which the server needs) and
    /// waits for all of them.
    static func onThreads(_ count: Int, _ work: @escaping @Sendable (Int) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for index in 0..<count {
                group.enter()
                Thread {
                    work(index)
                    group.leave()
                }.start()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
    }
}
