import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel chose: a port nothing answers on (listening, the
/// kernel completes handshakes and queues the connections), or, released at once, a port nothing listens on.
public final class LoopbackSocket: @unchecked Sendable {
    // Immutable after init; `close()` releases the socket.
    /// The socket's descriptor.
    public let descriptor: Int32
    /// The port the kernel bound it to.
    public let port: Int

    /// Binds a new socket, and listens when `listening`.
    /// - Throws: `CocoaError(.fileWriteUnknown)` when it cannot bind or listen.
    public init(listening: Bool) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listening || listen(descriptor, 16) == 0 else {
            _ = Glibc.close(descriptor)
            throw CocoaError(.fileWriteUnknown)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes the socket.
    public func close() { _ = Glibc.close(descriptor) }

    /// A 127.0.0.1 port nothing listens on: bound by the kernel's choice, then released.
    public static func unusedPort() throws -> Int {
        let socket = try LoopbackSocket(listening: false)
        defer { socket.close() }
        return socket.port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { _ = Glibc.close(fd) }
        return connect(fd, toLoopbackPort: port)
    }

    /// Connects the TCP socket `descriptor` to 127.0.0.1:`port`; whether it connected.
    static func connect(_ descriptor: Int32, toLoopbackPort port: Int) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }
}
