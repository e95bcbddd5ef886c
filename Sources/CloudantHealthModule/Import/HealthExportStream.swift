@preconcurrency internal import CLibXML2
internal import CloudantCore
internal import Foundation

/// Walks the top-level elements of an Apple Health `export.xml` with libxml2's streaming `xmlTextReader`,
/// in constant memory: each element is expanded on its own and freed when the stream moves on.
///
/// The internal DTD Apple writes is read (no `XML_PARSE_DTDLOAD`, so nothing external is fetched), its
/// entity declarations are never substituted (no `XML_PARSE_NOENT`), and `XML_PARSE_RECOVER` lets libxml2
/// continue past the malformed `<!ATTLIST>` of iOS 16 exports; what it recovered from is collected.
final class HealthExportStream {
    private let input: SanitizingFileInput
    private var reader: xmlTextReaderPtr?
    /// libxml2's recoverable errors and warnings, in order (capped).
    private(set) var diagnostics: [String] = []
    /// How many diagnostics there were in all.
    private(set) var diagnosticCount = 0
    static let diagnosticLimit = 100

    convenience init(url: URL) throws {
        try self.init(input: SanitizingFileInput(url: url), name: url.path)
    }

    /// Streams from `input`; `name` is what libxml2 calls the document in its messages.
    init(input: SanitizingFileInput, name: String) throws {
        ExternalEntityGuard.install()
        self.input = input
        let context = Unmanaged.passUnretained(input).toOpaque()
        let options = XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue | XML_PARSE_NOERROR.rawValue
            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue
        reader = xmlReaderForIO(
            { context, buffer, length in
                guard let context, let buffer else { return -1 }
                let input = Unmanaged<SanitizingFileInput>.fromOpaque(context).takeUnretainedValue()
                return input.read(into: buffer, capacity: Int(length))
            },
            { _ in 0 }, context, name, nil, Int32(bitPattern: options))
        guard let reader else {
            throw CloudantError(.invalidHealthExport, "libxml2 could not open the export for reading.")
        }
        let stream = Unmanaged.passUnretained(self).toOpaque()
        xmlTextReaderSetErrorHandler(reader, { argument, message, _, locator in
            guard let argument else { return }
            let stream = Unmanaged<HealthExportStream>.fromOpaque(argument).takeUnretainedValue()
            let line = locator.map { Int(xmlTextReaderLocatorLineNumber($0)) } ?? 0
            let text = message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            stream.record("line \(line): \(text)")
        }, stream)
    }

    deinit { xmlFreeTextReader(reader) }

    private func record(_ diagnostic: String) {
        diagnosticCount += 1
        if diagnostics.count < Self.diagnosticLimit { diagnostics.append(diagnostic) }
    }

    /// Forbidden control characters replaced so far.
    var replacedCharacters: Int { input.replacedCharacters }
    /// Unterminated DTD declarations closed before parsing.
    var repairedDeclarations: Int { input.repairedDeclarations }
    /// Bytes read so far.
    var bytesRead: Int { input.bytesRead }

    private var pendingSkip = false

    /// The root element's name once the stream has started (`HealthData`).
    private(set) var rootName: String?
    /// Whether the root element's end was reached: a stream that ends without it was cut short.
    private var rootClosed = false
    /// ``diagnosticCount`` when the last element was handed out.
    private var diagnosticsAtLastElement = 0
    /// Where and why libxml2 stopped before the end of the document, if it did: the elements after that
    /// point were never read.
    private(set) var stoppedEarly: HealthImportReport.ParseStop?

    /// Advances to the next child element of the root and returns it expanded with its line, or `nil` at
    /// the end. The view is valid until the next call.
    /// - Throws: ``CloudantError`` `.invalidHealthExport` when libxml2 stops on an unrecoverable error.
    func next() throws -> (element: XMLElementView, line: Int)? {
        guard let reader else { return nil }
        while true {
            // After handing out an expanded element, hop to its next sibling instead of walking its subtree.
            let status = pendingSkip ? xmlTextReaderNext(reader) : xmlTextReaderRead(reader)
            pendingSkip = false
            if status == 0 {
                if rootName != nil, !rootClosed, stoppedEarly == nil {
                    stoppedEarly = HealthImportReport.ParseStop(
                        line: Int(xmlTextReaderGetParserLineNumber(reader)),
                        reason: "the file ends before </\(rootName ?? "HealthData")>: it was cut short")
                }
                return nil
            }
            guard status == 1 else {
                if let error = input.readError {
                    throw CloudantError(.invalidHealthExport, "Reading the export failed.", underlying: error)
                }
                // A fatal error mid-stream (a damaged or truncated file): what was read stays imported, and
                // the report says the import is incomplete.
                // libxml2's own message, when it gave one for this stop (not an earlier, recovered one).
                let fresh = diagnosticCount > diagnosticsAtLastElement && diagnosticCount <= Self.diagnosticLimit
                let reason = fresh ? diagnostics.last ?? "" : "libxml2 could not continue: the file is damaged"
                record("stopped: \(reason)")
                stoppedEarly = HealthImportReport.ParseStop(line: Int(xmlTextReaderGetParserLineNumber(reader)), reason: reason)
                return nil
            }
            let nodeType = xmlTextReaderNodeType(reader)
            let depth = xmlTextReaderDepth(reader)
            if depth == 0, nodeType == Int32(XML_READER_TYPE_END_ELEMENT.rawValue) { rootClosed = true }
            guard nodeType == Int32(XML_READER_TYPE_ELEMENT.rawValue) else { continue }
            if depth == 0 {
                rootName = xmlTextReaderConstLocalName(reader).map { String(cString: $0) }
                if xmlTextReaderIsEmptyElement(reader) == 1 { rootClosed = true }
                continue
            }
            guard depth == 1 else { continue }
            let line = Int(xmlTextReaderGetParserLineNumber(reader))
            guard let node = xmlTextReaderExpand(reader) else { continue }
            diagnosticsAtLastElement = diagnosticCount
            pendingSkip = true
            return (XMLElementView(node: node), line)
        }
    }
}
