@preconcurrency internal import CLibXML2
internal import CloudantCore
internal import Foundation

/// Parses a whole XML document with libxml2 under ``XMLParseLimits`` and hands its root to a closure.
enum XMLDocumentReader {
    /// The libxml2 options every document parse uses: no network, errors collected rather than printed,
    /// short text kept inside its node (`COMPACT`: one allocation fewer per text node, as lxml parses).
    /// Deliberately absent: `NOENT` (substitute entities), `DTDLOAD`/`DTDATTR` (fetch or apply a DTD),
    /// `HUGE` (lift the entity-amplification and depth limits), `XINCLUDE`.
    static func options(recover: Bool) -> Int32 {
        var options = XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue
        if recover { options |= XML_PARSE_RECOVER.rawValue }
        return Int32(bitPattern: options)
    }

    /// Parses `data` and calls `body` with the root element; the document is freed when `body` returns.
    /// - Throws: `CloudantError` `.invalidXML` (with the byte size or libxml2's message, line and column)
    ///   when the input is too large, not well formed, or uses an entity libxml2 refuses.
    static func withRoot<T>(
        of data: Data, limits: XMLParseLimits, _ body: (XMLElementView, _ recoveredErrors: [String]) throws -> T
    ) throws -> T {
        ExternalEntityGuard.install()
        try checkSize(data.count, limits: limits)
        guard data.count < Int(Int32.max), let context = xmlNewParserCtxt() else {
            throw CloudantError(.invalidXML, "libxml2 could not allocate a parser.")
        }
        // libxml2 2.9 copies a memory input whole; read through a callback instead, so its buffer stays a few
        // kilobytes and freeing it does not make glibc consolidate the tree's freed nodes (the CDA benchmark's profile).
        let document = data.withUnsafeBytes { buffer -> xmlDocPtr? in
            let input = XMLChunkedInput(buffer)
            return withExtendedLifetime(input) {
                xmlCtxtReadIO(
                    context, XMLChunkedInput.read, nil, Unmanaged.passUnretained(input).toOpaque(), nil, nil,
                    options(recover: limits.recover))
            }
        }
        let lastError = Self.describeLastError(of: context)
        let wellFormed = context.pointee.wellFormed != 0
        xmlFreeParserCtxt(context)  // before the tree is used and freed: nothing below needs it
        guard let document, let root = xmlDocGetRootElement(document) else {
            if let document { xmlFreeDoc(document) }
            throw notWellFormed(lastError)
        }
        defer { xmlFreeDoc(document) }
        let recovered = !wellFormed ? [lastError?.message ?? "malformed XML recovered"] : []
        return try body(XMLElementView(node: root), recovered)
    }

    /// The refusal of an input libxml2 could not read a document from, with its last error.
    static func notWellFormed(_ lastError: (message: String, line: Int)?) -> CloudantError {
        CloudantError(
            .invalidXML, "The input is not well-formed XML: \(lastError?.message ?? "no root element").",
            context: .init(field: lastError.map { "line \($0.line)" }))
    }

    /// Refuses an input of `count` bytes over the limit before libxml2 sees it.
    static func checkSize(_ count: Int, limits: XMLParseLimits) throws {
        guard count <= limits.maximumBytes else {
            throw CloudantError(
                .invalidXML,
                "The XML is \(count) bytes, over the \(limits.maximumBytes)-byte limit; raise "
                    + "XMLParseLimits.maximumBytes if the input is trusted.",
                context: .init(position: limits.maximumBytes))
        }
    }

    /// libxml2's last error for `context`: message (with line and column) and line.
    static func describeLastError(of context: xmlParserCtxtPtr) -> (message: String, line: Int)? {
        guard let error = xmlCtxtGetLastError(context), error.pointee.code != 0 else { return nil }
        let text = error.pointee.message.map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "error \(error.pointee.code)"
        let line = Int(error.pointee.line)
        return ("\(text) (line \(line), column \(error.pointee.int2))", line)
    }
}
