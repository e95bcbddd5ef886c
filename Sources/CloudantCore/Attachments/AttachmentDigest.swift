internal import Crypto

/// Computes CouchDB's attachment digest, `"md5-" + base64(md5(bytes))` (spec D-37).
public enum AttachmentDigest {
    /// The digest of `bytes`.
    public static func of(_ bytes: [UInt8]) -> String {
        "md5-" + Base64.encode(Insecure.MD5.hash(data: bytes))
    }
}
