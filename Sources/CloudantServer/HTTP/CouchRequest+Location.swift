internal import HTTPTypes

extension CouchRequest {
    /// The absolute URI of `path` as CouchDB writes it in `Location` (`chttpd:absolute_uri`): the scheme
    /// (`https` when `X-Forwarded-Ssl: on` or `X-Forwarded-Proto: https`), then the host the client asked
    /// for (`X-Forwarded-Host`, else `Host`), then the path.
    func absoluteURI(_ path: String) -> String {
        let secure = header(named: forwardedHeaders.ssl) == "on" || header(named: forwardedHeaders.proto) == "https"
        return (secure ? "https://" : "http://") + (requestedHost ?? "127.0.0.1") + path
    }

    /// The host the client asked for: a proxy's forwarded host (``ForwardedHeaders/host``), else `Host`.
    var requestedHost: String? { header(named: forwardedHeaders.host) ?? authority }

    private func header(named name: String) -> String? { HTTPField.Name(name).flatMap { header($0) } }

    /// `Location` of a document: `/{db}/{docid}`, each part encoded as CouchDB's `couch_util:url_encode`
    /// does (so the `/` of `_design/x` becomes `%2F`), and of an attachment when `attachment` is given. As in
    /// `chttpd_db`, an attachment's location has the database's name as it is (`db_attachment_req/4`), a
    /// document's has it encoded (`update_doc/4`, `COPY`).
    func location(database: String, id: String, attachment: String? = nil) -> String {
        var path = "/" + (attachment == nil ? URLEncoding.couchDB(database) : database) + "/" + URLEncoding.couchDB(id)
        if let attachment { path += "/" + URLEncoding.couchDB(attachment) }
        return absoluteURI(path)
    }
}

/// CouchDB's percent-encoding for ids in URIs it writes (`couch_util:url_encode`): letters, digits and
/// `_ . - :` stay; every other byte of the UTF-8 becomes `%XX` in uppercase hex.
enum URLEncoding {
    /// A query-string name or value: unreserved characters stay, every other byte is `%XX`; with `spaceAsPlus`,
    /// a space is `+`, which makes it `mochiweb_util:quote_plus/1`.
    static func query(_ text: String, spaceAsPlus: Bool = false) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"):
                bytes.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                bytes.append(UInt8(ascii: "+"))
            default:
                bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func couchDB(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"),
                UInt8(ascii: ":"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The names of the headers a reverse proxy sets, as CouchDB's `[chttpd]` section names them
/// (`chttpd:absolute_uri/2`).
struct ForwardedHeaders: Sendable {
    /// `x_forwarded_host`: the host the client asked for.
    var host = "X-Forwarded-Host"
    /// `x_forwarded_ssl`: `on` when the client used TLS.
    var ssl = "X-Forwarded-Ssl"
    /// `x_forwarded_proto`: `https` when the client used TLS.
    var proto = "X-Forwarded-Proto"
}
