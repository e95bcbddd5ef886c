public import CloudantServer
import Foundation

extension ServerTLS {
    /// A fresh self-signed certificate for 127.0.0.1 and `localhost` (an EC P-256 key, valid two days) and its
    /// key, written by `openssl` into `folder` as `name.crt` and `name.key`.
    /// - Throws: ``ChildProcess/Failed`` when `openssl` fails; the file system's error when `folder` cannot be made.
    public static func selfSigned(in folder: String, name: String = "server") async throws -> ServerTLS {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tls = ServerTLS(certificatePath: "\(folder)/\(name).crt", privateKeyPath: "\(folder)/\(name).key")
        let made = try await ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", tls.privateKeyPath, "-out", tls.certificatePath,
            ])
        guard made.status == 0 else {
            throw ChildProcess.Failed(
                program: "openssl req", status: made.status, stderr: String(decoding: made.stderr, as: UTF8.self))
        }
        return tls
    }
}
