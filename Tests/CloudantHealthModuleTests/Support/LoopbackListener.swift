import CloudantTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 that counts connection attempts without answering, to prove that a
/// parser never fetched a URL pointing at it.
final class LoopbackListener: @unchecked Sendable {
    // Only the test thread touches the socket; the kernel queues connections until `acceptedConnections`.
    private let socket: LoopbackSocket
    var descriptor: Int32 { socket.descriptor }
    var port: UInt16 { UInt16(socket.port) }

    init() throws {
        socket = try LoopbackSocket(listening: true)
        _ = fcntl(socket.descriptor, F_SETFL, fcntl(socket.descriptor, F_GETFL) | O_NONBLOCK)
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

    func close() { socket.close() }
}
