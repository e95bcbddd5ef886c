import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 that counts connection attempts without answering, to prove that a
/// parser never fetched a URL pointing at it.
final class LoopbackListener: @unchecked Sendable {
    // Only the test thread touches `descriptor`; the kernel queues connections until `acceptedConnections`.
    private let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw CocoaError(.fileWriteUnknown) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// How many connections are waiting (each accepted and closed).
    func acceptedConnections() -> Int {
        var count = 0
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return count }
            count += 1
            Glibc.close(client)
        }
    }

    func close() { Glibc.close(descriptor) }
}
