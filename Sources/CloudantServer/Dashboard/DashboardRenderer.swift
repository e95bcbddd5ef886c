internal import CloudantCore
internal import HTTPTypes
internal import Hummingbird
internal import Mustache

/// Renders the dashboard's pages from its Mustache templates (``DashboardTemplates``) and wraps them in
/// responses with the headers every page carries.
///
/// Mustache's `{{name}}` escapes `& < > " '`, so user data (ids, fields, attachment names) can only ever be
/// text; the templates never use the unescaped `{{{name}}}` except for the SVG the server drew itself
/// (``DashboardHTML``), and the Content-Security-Policy allows no inline script either way.
struct DashboardRenderer: Sendable {
    private let library: MustacheLibrary

    init() {
        var library = MustacheLibrary()
        for (name, text) in DashboardTemplates.all {
            // The templates are constants of this module: one that does not parse is a programming error
            // that the dashboard tests catch at once.
            do { try library.register(text, named: name) } catch { preconditionFailure("Template \(name): \(error)") }
        }
        self.library = library
    }

    /// The page `template` rendered with `values`, as an HTML response.
    func page(_ template: String, _ values: [String: Any], status: Int = 200) -> Response {
        let html = library.render(values, withTemplate: template) ?? ""
        return Self.response(Array(html.utf8), status: status, contentType: "text/html; charset=utf-8")
    }

    /// A `303 See Other` to `location` (after a form post, so reloading does not post again).
    static func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.contentLength] = "0"
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers, body: ResponseBody())
    }

    /// A response with the dashboard's security headers: no caching of pages that hold user data, no
    /// framing, no sniffing, and a policy that runs only the dashboard's own script and style.
    static func response(_ bytes: [UInt8], status: Int = 200, contentType: String, cacheable: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.contentLength] = String(bytes.count)
        headers[.cacheControl] = cacheable ? "max-age=3600" : "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Small helpers for values pages show.
enum DashboardHTML {
    /// `/_utils/db/NAME` with the name percent-encoded.
    static func databasePath(_ name: String) -> String { "/_utils/db/" + DashboardAPI.percentEncoded(name) }

    /// `/_utils/db/NAME/doc/ID`.
    static func documentPath(_ database: String, _ id: String) -> String {
        databasePath(database) + "/doc/" + DashboardAPI.percentEncoded(id)
    }

    /// The API path of a document's attachment, for download links.
    static func attachmentPath(_ database: String, _ id: String, _ name: String) -> String {
        "/" + DashboardAPI.percentEncoded(database) + "/" + DashboardAPI.percentEncoded(id) + "/"
            + DashboardAPI.percentEncoded(name)
    }

    /// A byte count for people: `812 B`, `1.4 MB`.
    static func size(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A JSON value as a table cell shows it: strings as they are, anything else as compact JSON.
    static func cell(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        if let text = value.stringValue { return text }
        return value.jsonString()
    }

    /// A JSON value pretty-printed with two-space indents, members in their stored order.
    static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out
    }

    private static func write(_ value: JSONValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (index, member) in object.members.enumerated() {
                out += inner + JSONValue.string(member.key).jsonString() + ": "
                write(member.value, indent: inner, into: &out)
                out += index == object.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += inner
                write(item, indent: inner, into: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        default:
            out += value.jsonString()
        }
    }
}
