internal import Crypto

/// Computes CouchDB's attachment digest, `"md5-" + base64(md5(bytes))`.
public enum AttachmentDigest {
    /// The digest of `bytes`.
    public static func of(_ bytes: [UInt8]) -> String {
        "md5-" + Base64.encode(Insecure.MD5.hash(data: bytes))
    }

    /// The 16 bytes of the MD5 of `bytes`, for the package's other content hashes (health import keys), so
    /// they need not decode them back out of ``of(_:)``'s text.
    package static func md5(_ bytes: [UInt8]) -> [UInt8] {
        Array(Insecure.MD5.hash(data: bytes))
    }

    /// A digest computed piece by piece, for content streamed through without being held whole.
    ///
    /// ```swift
    /// var running = AttachmentDigest.Running()
    /// for try await chunk in body { running.update(chunk) }
    /// let digest = running.finalize()   // "md5-…", as `AttachmentDigest.of(wholeBody)`
    /// ```
    public struct Running: Sendable {
        private var hash = Insecure.MD5()

        /// Starts a digest of nothing.
        public init() {}

        /// Adds the next bytes.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            hash.update(bufferPointer: bytes)
        }

        /// Adds the next bytes.
        public mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { hash.update(bufferPointer: $0) }
        }

        /// The digest of every byte added, in CouchDB's form.
        public func finalize() -> String {
            "md5-" + Base64.encode(hash.finalize())
        }
    }

    /// The 16 MD5 bytes a digest names, or nil when it is not an `md5-` digest of 16 bytes.
    public static func md5Bytes(of digest: String) -> [UInt8]? {
        guard digest.hasPrefix("md5-"), let bytes = Base64.decode(String(digest.dropFirst(4))), bytes.count == 16 else {
            return nil
        }
        return bytes
    }
}
