@preconcurrency internal import CLibXML2
internal import CloudantCore
internal import Foundation

/// A read-only view of one libxml2 element, valid only while its document is alive (inside
/// ``XMLDocumentReader/withRoot(of:limits:_:)``'s closure). Names are local names: CDA and GPX files use
/// default namespaces, and prefixed spellings (`cda:title`) mean the same element.
///
/// Lookups compare names on libxml2's bytes and walk the sibling list in place: making a `String` of every
/// name passed and an array of every element's children was most of the cost of CDA extraction.
struct XMLElementView {
    let node: xmlNodePtr

    var name: String { node.pointee.name.map { String(cString: $0) } ?? "" }

    var namespaceURI: String? { node.pointee.ns?.pointee.href.map { String(cString: $0) } }

    /// Whether the element's local name is `name`.
    func isNamed(_ name: String) -> Bool { Self.equal(node.pointee.name, name) }

    /// Child elements in document order.
    var children: [XMLElementView] { Array(elements) }

    /// Child elements in document order, walked lazily.
    var elements: ChildElements { ChildElements(upcoming: Self.element(from: node.pointee.children)) }

    func children(named name: String) -> [XMLElementView] { elements.filter { $0.isNamed(name) } }

    /// The first child element named `name`.
    func child(_ name: String) -> XMLElementView? {
        var cursor = Self.element(from: node.pointee.children)
        while let current = cursor {
            if Self.equal(current.pointee.name, name) { return XMLElementView(node: current) }
            cursor = Self.element(from: current.pointee.next)
        }
        return nil
    }

    /// Follows a path of child names (`child("recordTarget", "patientRole", "patient")`).
    func child(_ first: String, _ rest: String...) -> XMLElementView? {
        var element = child(first)
        for name in rest { element = element?.child(name) }
        return element
    }

    /// The value of the attribute with local name `name`, whatever its namespace (`xsi:type` is `type`).
    func attribute(_ name: String) -> String? {
        var cursor = node.pointee.properties
        while let attribute = cursor {
            if Self.equal(attribute.pointee.name, name) { return Self.string(of: attribute.pointee.children) }
            cursor = attribute.pointee.next
        }
        return nil
    }

    /// The attribute's value as a number, exactly as `attribute(name).flatMap(Double.init)`: a plain decimal
    /// held in one text node is read in place, without a `String` (see `DecimalText`).
    func doubleAttribute(_ name: String) -> Double? {
        var cursor = node.pointee.properties
        while let attribute = cursor {
            if Self.equal(attribute.pointee.name, name) {
                if let number = Self.plainDouble(in: attribute.pointee.children) { return number }
                return DecimalText.double(Self.string(of: attribute.pointee.children))
            }
            cursor = attribute.pointee.next
        }
        return nil
    }

    /// The element's text as a number, exactly as `text.flatMap(Double.init)`, read in place when it is a
    /// plain decimal in one text node.
    var doubleText: Double? {
        Self.plainDouble(in: node.pointee.children) ?? text.flatMap(DecimalText.double)
    }

    /// The number a lone text node spells, when it is a plain decimal (`DecimalText.plainDouble(utf8:)`).
    static func plainDouble(in first: xmlNodePtr?) -> Double? {
        guard let first, first.pointee.next == nil, first.pointee.type == XML_TEXT_NODE, let content = first.pointee.content
        else { return nil }
        return DecimalText.plainDouble(utf8: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
    }

    /// The concatenated text of the element and its descendants, whitespace-trimmed; `nil` when empty.
    var text: String? {
        let value = Self.trimmed(Self.string(of: node.pointee.children))
        return value.isEmpty ? nil : value
    }

    /// The elements among a node and its following siblings.
    struct ChildElements: Sequence, IteratorProtocol {
        fileprivate var upcoming: xmlNodePtr?

        mutating func next() -> XMLElementView? {
            guard let current = upcoming else { return nil }
            upcoming = XMLElementView.element(from: current.pointee.next)
            return XMLElementView(node: current)
        }
    }

    /// `node` if it is an element, else its first following sibling that is.
    fileprivate static func element(from node: xmlNodePtr?) -> xmlNodePtr? {
        var cursor = node
        while let current = cursor, current.pointee.type != XML_ELEMENT_NODE { cursor = current.pointee.next }
        return cursor
    }

    /// Whether libxml2's NUL-terminated `xmlName` spells `name`, byte for byte.
    private static func equal(_ xmlName: UnsafePointer<xmlChar>?, _ name: String) -> Bool {
        guard let xmlName else { return false }
        return name.utf8.withContiguousStorageIfAvailable { wanted in
            for index in wanted.indices {
                // A NUL in `xmlName` ends it (and never matches a byte of a name with no NUL in it).
                let byte = xmlName[index]
                if byte == 0 || byte != wanted[index] { return false }
            }
            return xmlName[wanted.count] == 0
        } ?? (String(cString: xmlName) == name)
    }

    /// The text of `first` and its following siblings: text and CDATA, and the text of elements among them.
    private static func string(of first: xmlNodePtr?) -> String {
        guard let first else { return "" }
        // Most elements and attributes hold one text node: read it without gathering.
        if first.pointee.next == nil, first.pointee.type == XML_TEXT_NODE || first.pointee.type == XML_CDATA_SECTION_NODE {
            return first.pointee.content.map { String(cString: $0) } ?? ""
        }
        var bytes: [UInt8] = []
        appendText(of: first, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendText(of first: xmlNodePtr, to bytes: inout [UInt8]) {
        var cursor: xmlNodePtr? = first
        while let current = cursor {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content {
                    bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
                }
            case XML_ELEMENT_NODE:
                if let children = current.pointee.children { appendText(of: children, to: &bytes) }
            default:
                break  // Entity references stay unexpanded: their text is never trusted content.
            }
            cursor = current.pointee.next
        }
    }

    /// `text` without surrounding whitespace and newlines; looks at the ends before paying for a trim.
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last else { return text }
        return isPlain(first) && isPlain(last) ? text : text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether a UTF-8 byte is one that trimming can never remove: ASCII, not a space or a line break.
    static func isPlain(_ byte: UInt8) -> Bool { byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte) }
}
