@preconcurrency internal import CLibXML2
internal import CloudantCore
internal import Foundation

/// The content-derived uuid of an export element (see ``ExportAttributes/contentUUID(startingAt:)``),
/// computed from libxml2's bytes directly.
///
/// The hash is that of `{"export": [name, [[attribute, value]…], [children…]]}`: MD5 over the canonical
/// JSON ``RevisionHash`` hashes. Building that as `JSONValue`s and serialising them was a tenth of the
/// import's time; here the same canonical bytes are written straight from the element
/// (`SampleDocumentTests` checks both ways agree). Text with non-ASCII bytes goes through `String` first,
/// as the `JSONValue` path did, so even malformed UTF-8 is repaired identically.
enum ContentFingerprint {
    /// The uuid, as uppercase hex in 8-4-4-4-12 groups: a version-7 layout whose 48-bit time is `start`
    /// (milliseconds since 1970, clamped to the field) and whose other 74 bits are the fingerprint's MD5.
    ///
    /// Why time first: ids are the key of the two largest B-trees an import grows (the id index and the
    /// index by kind and id). Pure hashes sent every insert to a random page, so each batch of 2,000
    /// dirtied about 4,000 pages and a 1M-record import wrote 16.6 GB for a 1.7 GB file. An export lists
    /// each type's records in time order, so time-ordered ids are appended near the previous ones.
    static func uuid(of node: xmlNodePtr, startingAt start: Date) -> String {
        var digest = md5(of: node)
        let milliseconds = (start.timeIntervalSince1970 * 1000).rounded(.down)
        let time = milliseconds <= 0 ? 0 : UInt64(min(milliseconds, Double((1 << 48) - 1)))
        for index in 0..<6 { digest[index] = UInt8(truncatingIfNeeded: time >> (8 * (5 - index))) }
        digest[6] = 0x70 | (digest[6] & 0x0F)  // version 7
        digest[8] = 0x80 | (digest[8] & 0x3F)  // RFC 9562 variant
        return hexGroups(digest)
    }

    /// The MD5 of the element's canonical fingerprint: the revision hash of
    /// `{"export": [name, [[attribute, value]…], [children…]]}`.
    static func md5(of node: xmlNodePtr) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        append(#"{"attachments":[],"body":{"export":"#, to: &bytes)
        write(node, into: &bytes)
        append(#"},"deleted":false,"parent":null}"#, to: &bytes)
        // CouchDB's attachment digest is `md5-` + base64 of the MD5: the one MD5 this module can reach.
        return Data(base64Encoded: String(AttachmentDigest.of(bytes).dropFirst(4))).map { Array($0) } ?? []
    }

    /// 16 bytes as uppercase hex in 8-4-4-4-12 groups.
    static func hexGroups(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in digest.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `[name,[[attribute,value],…],[child,…]]`.
    private static func write(_ node: xmlNodePtr, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        writeString(node.pointee.name, into: &bytes)
        append(",[", to: &bytes)
        var attribute = node.pointee.properties
        var first = true
        while let current = attribute {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "["))
            writeString(current.pointee.name, into: &bytes)
            bytes.append(UInt8(ascii: ","))
            writeValue(of: firstAttribute(named: current.pointee.name, in: node), into: &bytes)
            bytes.append(UInt8(ascii: "]"))
            attribute = current.pointee.next
        }
        append("],[", to: &bytes)
        var child = node.pointee.children
        first = true
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(current, into: &bytes)
            }
            child = current.pointee.next
        }
        append("]]", to: &bytes)
    }

    /// The first attribute with this name, as a lookup by name finds it (names are unique in XML).
    private static func firstAttribute(named name: UnsafePointer<xmlChar>?, in node: xmlNodePtr) -> xmlAttrPtr? {
        var cursor = node.pointee.properties
        while let attribute = cursor {
            if xmlStrEqual(attribute.pointee.name, name) != 0 { return attribute }
            cursor = attribute.pointee.next
        }
        return nil
    }

    private static func writeValue(of attribute: xmlAttrPtr?, into bytes: inout [UInt8]) {
        if let child = attribute?.pointee.children, child.pointee.next == nil, child.pointee.type == XML_TEXT_NODE {
            writeString(child.pointee.content, into: &bytes)
        } else {
            writeString(ExportAttributes.value(of: attribute) ?? "", into: &bytes)
        }
    }

    private static func writeString(_ text: UnsafePointer<xmlChar>?, into bytes: inout [UInt8]) {
        guard let text else { return writeString("", into: &bytes) }
        let length = Int(xmlStrlen(text))
        let buffer = UnsafeBufferPointer(start: text, count: length)
        guard buffer.allSatisfy({ $0 < 0x80 }) else {
            return writeString(String(cString: text), into: &bytes)
        }
        writeEscaped(buffer, into: &bytes)
    }

    private static func writeString(_ text: String, into bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { writeEscaped($0, into: &bytes) }
    }

    /// A JSON string as the store's canonical writer spells it: `"` and `\` escaped, control characters as
    /// `\b \f \n \r \t` or `\u00xx`, everything else as it is.
    private static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x08: append("\\b", to: &bytes)
            case 0x0C: append("\\f", to: &bytes)
            case 0x0A: append("\\n", to: &bytes)
            case 0x0D: append("\\r", to: &bytes)
            case 0x09: append("\\t", to: &bytes)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                append("\\u00", to: &bytes)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
