/// Closes declarations in a DOCTYPE's internal subset that lost their `>`: iOS 16 exports write an
/// `<!ATTLIST InstantaneousBeatsPerMinute …` with no closing `>`, and libxml2's streaming reader stops there
/// even in recovery mode. The subset is only read, never used (entities are not substituted, attributes
/// not defaulted), so closing the declaration changes nothing but letting the stream go on.
enum InternalSubsetRepair {
    /// How far into the file the DOCTYPE may end; Apple's is about 10 KB.
    static let headLimit = 1 << 20

    /// Repairs the internal subset found in `head`, returning the new bytes and how many declarations were
    /// closed. Text without a complete `<!DOCTYPE … [ … ]>` is returned unchanged.
    static func repair(_ head: [UInt8]) -> (bytes: [UInt8], repairs: Int) {
        guard let doctype = find(Array("<!DOCTYPE".utf8), in: head, from: 0),
            let open = head[doctype...].firstIndex(of: UInt8(ascii: "[")),
            let close = find(Array("]>".utf8), in: head, from: open)
        else { return (head, 0) }
        var output = Array(head[...open])
        var repairs = 0
        var inDeclaration = false
        var quote: UInt8?
        var index = open + 1
        while index < close {
            let byte = head[index]
            if let active = quote {
                if byte == active { quote = nil }
                output.append(byte)
                index += 1
                continue
            }
            if head[index...].starts(with: Array("<!--".utf8)) {
                let end = find(Array("-->".utf8), in: head, from: index).map { $0 + 3 } ?? close
                if inDeclaration { output.append(UInt8(ascii: ">")); repairs += 1; inDeclaration = false }
                output.append(contentsOf: head[index..<min(end, close)])
                index = min(end, close)
                continue
            }
            if byte == UInt8(ascii: "<"), index + 1 < close, head[index + 1] == UInt8(ascii: "!") || head[index + 1] == UInt8(ascii: "?") {
                if inDeclaration { output.append(UInt8(ascii: ">")); repairs += 1 }
                inDeclaration = true
            } else if byte == UInt8(ascii: ">") {
                inDeclaration = false
            } else if inDeclaration, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            }
            output.append(byte)
            index += 1
        }
        if inDeclaration { output.append(UInt8(ascii: ">")); repairs += 1 }
        output.append(contentsOf: head[close...])
        return (output, repairs)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
        }
        return nil
    }
}
