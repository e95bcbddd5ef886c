import CloudantTestSupport
import Foundation
import Testing

/// `cloudant serve` with the session, TLS and per-user options, typed as a user types them.
@Suite("serve: sessions, TLS and per-user databases from the command line")
struct ServeSecurityOptionsTests {
    private static func curl(_ arguments: [String]) async throws -> String {
        String(decoding: try await ChildProcess.run("/usr/bin/curl", ["-s", "-S"] + arguments).stdout, as: UTF8.self)
    }

    @Test func serveWithTLSPerUserDatabasesAndStrictCookiesAnswersAsConfigured() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-cli-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("server.crt").path
        let key = folder.appendingPathComponent("server.key").path
        let made = try await ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        #expect(made.status == 0)
        let server = try await ServeProcess.start(
            [
                "--data", folder.appendingPathComponent("data").path, "serve", "--port", "0", "--admin", "admin:s3cret",
                "--tls-certificate", certificate, "--tls-key", key, "--per-user-databases", "--cookie-same-site", "strict",
                "--session-max-lifetime", "3600",
            ], in: folder)
        defer { server.kill() }
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let user = #"{"name":"zoe","password":"pw","roles":[],"type":"user"}"#
        let created = try await Self.curl([
            "--cacert", certificate, "-u", "admin:s3cret", "-X", "PUT", "-H", "Content-Type: application/json", "-d", user,
            server.url + "/_users/org.couchdb.user:zoe",
        ])
        #expect(created.contains(#""ok":true"#))
        let security = try await Self.curl(["--cacert", certificate, "-u", "admin:s3cret", server.url + "/userdb-7a6f65/_security"])
        #expect(security.contains(#""names":["zoe"]"#))
        let login = try await Self.curl([
            "--cacert", certificate, "-i", "-H", "Content-Type: application/json", "-d", #"{"name":"zoe","password":"pw"}"#,
            server.url + "/_session",
        ])
        #expect(login.contains("SameSite=Strict; Secure"))
        let sessions = try await Self.curl(["--cacert", certificate, "-u", "admin:s3cret", server.url + "/_sessions?name=zoe"])
        #expect(sessions.contains(#""ends_by":"#))
    }

    @Test func badSecurityOptionsAreRefusedWithTheInvalidInputStatus() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-cli-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sideways = try await CLIRunner.run(["serve", "--port", "0", "--cookie-same-site", "sideways"], in: folder)
        #expect(sideways.status == 2)
        let lonely = try await CLIRunner.run(["serve", "--port", "0", "--tls-certificate", "x.crt"], in: folder)
        #expect(lonely.status == 2 && lonely.stderr.contains("--tls-key"))
        let missing = try await CLIRunner.run(["serve", "--port", "0", "--tls-certificate", "x.crt", "--tls-key", "x.key"], in: folder)
        #expect(missing.status == 2 && missing.stderr.contains("tlsUnusable"))
    }
}
