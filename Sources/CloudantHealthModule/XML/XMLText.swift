internal import CLibXML2
internal import Foundation

/// Text written into XML the module produces (GPX routes, SVG charts).
enum XMLText {
    /// `value` with `&`, `<`, `>`, `"` and carriage returns escaped by libxml2: safe as element text and in a
    /// double-quoted attribute.
    static func escaped(_ value: String) -> String {
        ExternalEntityGuard.install()
        let encoded = value.withCString { pointer in
            pointer.withMemoryRebound(to: xmlChar.self, capacity: value.utf8.count + 1) { xmlEncodeSpecialChars(nil, $0) }
        }
        guard let encoded else { return "" }
        defer { free(encoded) }
        return String(decoding: UnsafeBufferPointer(start: encoded, count: strlen(encoded)), as: UTF8.self)
    }
}
