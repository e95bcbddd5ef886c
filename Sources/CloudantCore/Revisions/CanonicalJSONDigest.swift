internal import Crypto

/// An MD5 of a body's canonical JSON inside a fixed envelope, for ids that must stay the same across
/// releases (the health module names each day's activity summary by it, so importing an export again names
/// the same document).
///
/// The hex MD5 of the canonical JSON (``JSONValue/canonicalJSONBytes()``) of
/// `{"attachments":[],"body":{…},"deleted":false,"parent":null}`, where `body` leaves out every top-level
/// member whose name starts with `_`.
///
/// - Important: Frozen: a changed input would rename documents already stored. `CanonicalJSONDigestTests` pins
///   known values.
package enum CanonicalJSONDigest {
    /// 32 lowercase hex characters.
    package static func of(body: JSONObject) -> String {
        var writer = JSONWriter.canonical(capacity: 256)
        writer.appendRaw(#"{"attachments":[],"body":"#)
        writer.write(body, skipping: { $0.hasPrefix("_") })
        writer.appendRaw(#","deleted":false,"parent":null}"#)
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in Insecure.MD5.hash(data: writer.output) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
