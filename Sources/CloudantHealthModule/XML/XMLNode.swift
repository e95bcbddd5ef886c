@preconcurrency internal import CLibXML2
internal import Foundation

/// A read-only view of one libxml2 element, valid only while its document is alive (inside
/// ``XMLDocumentReader/withRoot(of:limits:_:)``'s closure). Names are local names: CDA and GPX files use
/// default namespaces, and prefixed spellings (`cda:title`) mean the same element.
struct XMLElementView {
    let node: xmlNodePtr

    var name: String { node.pointee.name.map { String(cString: $0) } ?? "" }

    var namespaceURI: String? { node.pointee.ns?.pointee.href.map { String(cString: $0) } }

    /// Child elements in document order.
    var children: [XMLElementView] {
        var result: [XMLElementView] = []
        var cursor = node.pointee.children
        while let current = cursor {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(XMLElementView(node: current)) }
            cursor = current.pointee.next
        }
        return result
    }

    func children(named name: String) -> [XMLElementView] { children.filter { $0.name == name } }

    func child(_ name: String) -> XMLElementView? { children.first { $0.name == name } }

    /// Follows a path of child names (`child("recordTarget", "patientRole", "patient")`).
    func child(_ first: String, _ rest: String...) -> XMLElementView? {
        rest.reduce(child(first)) { element, name in element?.child(name) }
    }

    /// The value of the attribute with local name `name`, whatever its namespace (`xsi:type` is `type`).
    func attribute(_ name: String) -> String? {
        var cursor = node.pointee.properties
        while let attribute = cursor {
            if let attributeName = attribute.pointee.name, String(cString: attributeName) == name {
                return Self.text(of: attribute.pointee.children)
            }
            cursor = attribute.pointee.next
        }
        return nil
    }

    /// The concatenated text of the element and its descendants, whitespace-trimmed; `nil` when empty.
    var text: String? {
        let value = Self.text(of: node.pointee.children).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    private static func text(of first: xmlNodePtr?) -> String {
        var result = ""
        var cursor = first
        while let current = cursor {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { result += String(cString: content) }
            case XML_ELEMENT_NODE:
                result += text(of: current.pointee.children)
            default:
                break  // Entity references stay unexpanded: their text is never trusted content.
            }
            cursor = current.pointee.next
        }
        return result
    }
}
