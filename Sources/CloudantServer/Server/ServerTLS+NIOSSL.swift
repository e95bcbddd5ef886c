internal import CloudantCore
internal import HummingbirdTLS
internal import NIOSSL

extension ServerTLS {
    /// The server side of a TLS 1.2+ configuration presenting the certificate chain and key.
    /// - Throws: `CloudantError` `.tlsUnusable` when a file cannot be read or parsed as PEM, or holds no
    ///   certificate.
    func serverConfiguration() throws(CloudantError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw CloudantError(
                .tlsUnusable, "Could not read a PEM certificate from '\(certificatePath)'.", context: .init(file: certificatePath),
                underlying: error)
        }
        guard !chain.isEmpty else {
            throw CloudantError(.tlsUnusable, "'\(certificatePath)' holds no PEM certificate.", context: .init(file: certificatePath))
        }
        do {
            key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        } catch {
            throw CloudantError(
                .tlsUnusable, "Could not read a PEM private key from '\(privateKeyPath)'.", context: .init(file: privateKeyPath),
                underlying: error)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        // A key that does not belong to the certificate fails here, at start-up, not at the first handshake.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw CloudantError(
                .tlsUnusable, "The key in '\(privateKeyPath)' does not fit the certificate in '\(certificatePath)'.",
                context: .init(file: privateKeyPath), underlying: error)
        }
        return configuration
    }
}
