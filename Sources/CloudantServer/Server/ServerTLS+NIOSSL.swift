internal import HummingbirdTLS
internal import NIOSSL

extension ServerTLS {
    /// The server side of a TLS 1.2+ configuration presenting the certificate chain and key.
    /// - Throws: ``ServerError`` `.tlsUnusable` when a file cannot be read or parsed as PEM, or holds no
    ///   certificate.
    func serverConfiguration() throws(ServerError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw ServerError(
                .tlsUnusable, "Could not read a PEM certificate from '\(certificatePath)'.", underlying: error)
        }
        guard !chain.isEmpty else {
            throw ServerError(.tlsUnusable, "'\(certificatePath)' holds no PEM certificate.")
        }
        do {
            key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        } catch {
            throw ServerError(.tlsUnusable, "Could not read a PEM private key from '\(privateKeyPath)'.", underlying: error)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        // A key that does not belong to the certificate fails here, at start-up, not at the first handshake.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ServerError(
                .tlsUnusable, "The key in '\(privateKeyPath)' does not fit the certificate in '\(certificatePath)'.",
                underlying: error)
        }
        return configuration
    }
}
