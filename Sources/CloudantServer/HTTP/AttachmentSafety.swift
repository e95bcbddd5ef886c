internal import Foundation

/// The headers that keep an attachment from running as a page of the server's origin.
///
/// An attachment is whatever a user uploaded, served from the origin the dashboard and every session cookie
/// belong to: an HTML or SVG attachment opened by an admin would run its author's script with the admin's
/// session. So every attachment answer carries, as CouchDB 3.2+ does, `Content-Security-Policy: sandbox`
/// (CouchDB's `[csp] attachments_header_value` default, from `chttpd_db`), which makes the page a unique
/// origin with scripts off; and, beyond CouchDB, `X-Content-Type-Options: nosniff`, so a browser never
/// guesses an active type from the bytes, and `Content-Disposition: attachment` for the types a browser would
/// run (HTML, XHTML, XML, SVG, JavaScript), so they are downloaded rather than opened. The README lists the
/// last two as deliberate differences.
enum AttachmentSafety {
    /// CouchDB's default attachment policy.
    static let contentSecurityPolicy = "sandbox"

    /// The media types a browser renders as documents that can run script.
    static func isActive(_ contentType: String) -> Bool {
        let essence = (contentType.split(separator: ";").first.map(String.init) ?? contentType)
            .trimmingCharacters(in: .whitespaces).lowercased()
        if essence.hasSuffix("+xml") || essence.hasSuffix("/xml") { return true }
        return [
            "text/html", "application/xhtml+xml", "image/svg+xml", "text/xsl", "application/javascript",
            "text/javascript", "application/ecmascript", "text/ecmascript", "application/x-javascript",
            "multipart/x-mixed-replace",
        ].contains(essence)
    }

    /// The safety headers for an attachment named `name` of type `contentType`.
    static func headers(contentType: String, name: String) -> [(String, String)] {
        var headers = [("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff")]
        if isActive(contentType) { headers.append(("Content-Disposition", disposition(name))) }
        return headers
    }

    /// `attachment` with the name's last path segment, ASCII-quoted and RFC 8187-encoded.
    static func disposition(_ name: String) -> String {
        let base = name.split(separator: "/").last.map(String.init) ?? name
        let quoted = String(
            base.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" ? Character(scalar) : "_"
            })
        let digits = Array("0123456789ABCDEF")
        var encoded = ""
        for byte in base.utf8 {
            let unreserved =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
            if unreserved {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                encoded += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0f)])
            }
        }
        return "attachment; filename=\"\(quoted)\"; filename*=UTF-8''\(encoded)"
    }

    /// The names of the headers above, to keep them on answers built from other headers.
    static let names: Set<String> = ["Content-Security-Policy", "X-Content-Type-Options", "Content-Disposition"]
}
