import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare, blocking TCP connection to 127.0.0.1: the transport of ``TestClient``, and a way to hang up
/// half-way through a request or read a streamed response event by event. A read that receives nothing for
/// ``TestDeadline/generous`` fails, so a broken server fails a test instead of hanging it.
/// `@unchecked Sendable`: the socket is an immutable descriptor; each test uses it from one thread at a time.
public final class RawConnection: @unchecked Sendable {
    private let socket: Int32
    /// What ``readUntil(_:count:)`` has received so far (one reader at a time).
    private let streamed = Box()

    /// The received bytes, behind a class so the connection stays immutable.
    private final class Box: @unchecked Sendable {
        // Used by one reading thread at a time (the test awaits each read).
        var value: [UInt8] = []
    }

    /// Connects to 127.0.0.1:`port`.
    /// - Throws: `URLError(.cannotConnectToHost)` when nothing accepts there.
    public init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: Int(TestDeadline.generous.components.seconds), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard LoopbackSocket.connect(socket, toLoopbackPort: port) else {
            Glibc.close(socket)
            throw URLError(.cannotConnectToHost)
        }
    }

    /// Sends text.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends bytes (ignoring a peer that hung up).
    public func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            sent += written
        }
    }

    /// Reads until the peer closes the connection.
    /// - Throws: `URLError(.timedOut)` when nothing arrives for ``TestDeadline/generous``.
    public func readToEnd() throws -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return received }
            if count < 0 {
                // A signal (a debugger attaching, a child's SIGCHLD) interrupts the wait, not the response.
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw URLError(.timedOut) }
                return received  // a reset after the response (the server closed first) still leaves it intact
            }
            received.append(contentsOf: chunk[..<count])
        }
    }

    /// ``readToEnd()`` on a thread of its own, so a test awaiting it never blocks the cooperative pool the
    /// in-process server needs.
    public func readToEndOffPool() async throws -> [UInt8] {
        try await onOwnThread { try self.readToEnd() }
    }

    /// Reads (on a thread of its own) until what was received so far contains `needle` `count` times, and
    /// returns all of it: for a streamed response, read event by event.
    /// - Throws: `URLError(.timedOut)` when nothing arrives for ``TestDeadline/generous`` or all of it takes
    ///   longer; `.networkConnectionLost` when the peer closes first.
    public func readUntil(_ needle: String, count: Int = 1) async throws -> String {
        try await readUntil { $0.components(separatedBy: needle).count - 1 >= count }
    }

    /// Reads (on a thread of its own) until `enough` holds for what was received so far (from the first byte of
    /// the connection), and returns all of it.
    /// - Throws: `URLError(.timedOut)` when nothing arrives for ``TestDeadline/generous`` or all of it takes
    ///   longer; `.networkConnectionLost` when the peer closes first.
    public func readUntil(_ enough: @escaping @Sendable (String) -> Bool) async throws -> String {
        try await onOwnThread {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let deadline = ContinuousClock.now + TestDeadline.generous  // heartbeats keep recv from timing out
            while true {
                guard ContinuousClock.now < deadline else { throw URLError(.timedOut) }
                let text = String(decoding: self.streamed.value, as: UTF8.self)
                if enough(text) { return text }
                let read = chunk.withUnsafeMutableBytes { recv(self.socket, $0.baseAddress, $0.count, 0) }
                if read < 0, errno == EINTR { continue }
                if read < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw URLError(.timedOut) }
                if read <= 0 { throw URLError(.networkConnectionLost) }
                self.streamed.value.append(contentsOf: chunk[..<read])
            }
        }
    }

    /// Closes the sending side only (a FIN, as a client that hangs up), keeping the socket to read.
    public func shutdownWriting() { Glibc.shutdown(socket, Int32(SHUT_WR)) }

    /// Closes the connection.
    public func close() { Glibc.close(socket) }
}
