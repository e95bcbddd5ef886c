import CloudantTestSupport
import Foundation
import Testing

@Suite("CONNECT, which SwiftNIO frames without a body")
struct ConnectMethodTests {
    @Test func connectGetsCouchDBsStatusAndTheConnectionCloses() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let port = server.port
            let raw: [UInt8] = try await withCheckedThrowingContinuation { continuation in
                Thread {
                    do {
                        let connection = try RawConnection(port: port)
                        defer { connection.close() }
                        // Keep-alive on purpose: the server must close the connection itself.
                        connection.send(
                            "CONNECT /db/_index/a HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                + "Authorization: Basic \(Data("admin:s3cret".utf8).base64EncodedString())\r\n\r\n")
                        continuation.resume(returning: try connection.readToEnd())
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.start()
            }
            let head = String(decoding: raw, as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 404"))
            #expect(head.lowercased().contains("connection: close"))
        }
    }
}
