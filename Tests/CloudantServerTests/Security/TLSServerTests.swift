import CloudantCore
import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// `serve` over HTTPS with a certificate and key, checked with curl trusting only that certificate.
@Suite("TLS: HTTPS with a certificate and key")
struct TLSServerTests {
    private static func curl(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run("/usr/bin/curl", ["-s", "-S"] + arguments)
    }

    @Test func theServerAnswersHTTPSAndItsSessionCookieIsSecure() async throws {
        let folder = NSTemporaryDirectory() + "cloudant-tls-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tls = try await ServerTLS.selfSigned(in: folder + "/pki")
        let configure: (inout ServerConfiguration) -> Void = { $0.tls = tls }
        try await withLiveServer(configure) { server in
            let url = try await server.server.url()
            #expect(url.hasPrefix("https://127.0.0.1:"))
            let welcome = try await Self.curl(["--cacert", tls.certificatePath, url + "/"])
            #expect(welcome.status == 0)
            #expect(try JSONValue(parsing: welcome.stdout)["couchdb"] == "Welcome")
            let login = try await Self.curl([
                "--cacert", tls.certificatePath, "-i", "-H", "Content-Type: application/json",
                "-d", #"{"name":"admin","password":"s3cret"}"#, url + "/_session",
            ])
            let headers = String(decoding: login.stdout, as: UTF8.self)
            let cookie = try #require(headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
            #expect(cookie.contains("; HttpOnly") && cookie.contains("; Secure"))
            // Without trusting the certificate, curl refuses the connection; plain HTTP gets no answer.
            #expect(try await Self.curl([url + "/"]).status != 0)
            let plain = try await Self.curl(["--max-time", "5", url.replacingOccurrences(of: "https://", with: "http://") + "/"])
            #expect(plain.status != 0 || !String(decoding: plain.stdout, as: UTF8.self).contains("Welcome"))
        }
    }

    @Test func aMissingFileOrAKeyThatDoesNotFitTheCertificateIsATypedErrorAtCreation() async throws {
        let folder = NSTemporaryDirectory() + "cloudant-tls-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await ServerTLS.selfSigned(in: folder, name: "first")
        let second = try await ServerTLS.selfSigned(in: folder, name: "second")
        for tls in [
            ServerTLS(certificatePath: folder + "/none.crt", privateKeyPath: first.privateKeyPath),
            ServerTLS(certificatePath: first.certificatePath, privateKeyPath: folder + "/none.key"),
            ServerTLS(certificatePath: first.certificatePath, privateKeyPath: second.privateKeyPath),
            ServerTLS(certificatePath: first.privateKeyPath, privateKeyPath: first.privateKeyPath),
        ] {
            var configuration = ServerConfiguration(port: 0, directory: StoreDirectory(path: folder + "/data"))
            configuration.tls = tls
            #expect {
                _ = try CouchServer(configuration: configuration)
            } throws: { error in
                (error as? CloudantError)?.code == .tlsUnusable
            }
        }
    }
}
