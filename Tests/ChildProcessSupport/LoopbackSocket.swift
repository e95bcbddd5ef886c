import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel chose: a port nothing answers on (listening, the
/// kernel completes handshakes and queues the connections), or, released at once, a port nothing listens on.
public final class LoopbackSocket: @unchecked Sendable {
    // Immutable after init; `close()` releases the socket.
    public let descriptor: Int32
    public let port: Int

    /// Binds a new socket, and listens when `listening`.
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

    public func close() { _ = Glibc.close(descriptor) }

    /// A 127.0.0.1 port nothing listens on: bound by the kernel's choice, then released.
    public static func unusedPort() throws -> Int {
        let socket = try LoopbackSocket(listening: false)
        defer { socket.close() }
        return socket.port
    }
}
