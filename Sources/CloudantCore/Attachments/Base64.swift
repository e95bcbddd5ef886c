internal import Foundation

/// Base64 as CouchDB writes attachment data and digests (standard alphabet, padded).
public enum Base64 {
    /// Encodes bytes.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Decodes standard base64 (whitespace tolerated, as CouchDB does); `nil` when malformed.
    public static func decode(_ string: String) -> [UInt8]? {
        let compact = string.filter { !$0.isWhitespace }
        return Data(base64Encoded: compact).map { Array($0) }
    }
}
