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

    /// What errors and the report call the input: its path as given, or `standard input`.
    let name: String

    convenience init(url: URL) throws {
        try self.init(input: SanitizingFileInput(url: url), name: url.path)
    }

    /// Streams from `input`; `name` is what libxml2 and the import's errors call the document.
    init(input: SanitizingFileInput, name: String) throws {
        ExternalEntityGuard.install()
        self.input = input
        self.name = name
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
            throw CloudantError(
                .invalidHealthExport, "libxml2 could not open \(name) for reading.", context: .init(field: name))
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

    deinit {
        if let (document, subset) = detachedSubset { document.pointee.intSubset = subset }
        xmlFreeTextReader(reader)
    }

    /// The document and its internal subset, set aside once it was read (see ``detachSubsetWithoutEntities()``).
    private var detachedSubset: (document: xmlDocPtr, subset: UnsafeMutablePointer<xmlDtd>)?

    /// Sets the internal DTD aside from the document once the root element starts, when it declares no
    /// entities; it is put back before the document is freed.
    ///
    /// libxml2 asks the DTD whether each attribute is an ID or an IDREF, twice: when it builds the
    /// attribute (`xmlIsID`, `xmlIsRef`) and when the reader frees it. Apple's DTD declares attributes of
    /// every element, so each lookup hashes the element's and attribute's names: about a tenth of parsing
    /// `export.xml` (perf, 1M records), for IDs nothing here uses. Past the DOCTYPE, the document's subset is
    /// used for nothing else but entities (attribute normalisation and defaults use the parser's own tables,
    /// and blanks are always kept), so a DTD without entity declarations is set aside without changing what
    /// is parsed; one that declares entities stays, and they stay unexpanded as before.
    private func detachSubsetWithoutEntities() {
        guard let reader, let document = xmlTextReaderCurrentNode(reader)?.pointee.doc,
            let subset = document.pointee.intSubset,
            subset.pointee.entities == nil, subset.pointee.pentities == nil
        else { return }
        detachedSubset = (document, subset)
        document.pointee.intSubset = nil
    }

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
    /// The first bytes of the input, which name the export (see ``ImportCheckpoint/exportIdentity(head:)``).
    var headBytes: ArraySlice<UInt8> { input.headBytes }

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
    /// - Throws: `CloudantError` `.invalidHealthExport` when the input is not an Apple Health export (another
    ///   root element, not XML, empty), naming the input and the line; or when reading the input fails.
    func next() throws -> (element: XMLElementView, line: Int)? {
        guard let reader, try advance() else { return nil }
        let line = Int(xmlTextReaderGetParserLineNumber(reader))
        guard let node = xmlTextReaderExpand(reader) else { return try next() }
        diagnosticsAtLastElement = diagnosticCount
        return (XMLElementView(node: node), line)
    }

    /// Moves past the next child element of the root without building it (a resumed import passes over what
    /// an earlier run committed); `false` at the end.
    /// - Throws: as ``next()``.
    func skipNext() throws -> Bool { try advance() }

    /// Positions the reader on the next child element of the root (the following call hops over it).
    private func advance() throws -> Bool {
        guard let reader else { return false }
        while true {
            // After handing out an element, hop to its next sibling instead of walking its subtree.
            let status = pendingSkip ? xmlTextReaderNext(reader) : xmlTextReaderRead(reader)
            pendingSkip = false
            if status == 0 {
                guard rootName != nil else { throw notAnExport("it is empty, or holds no element") }
                // An input that ended early, or failed its checksum after its last byte (a gzip trailer
                // that does not match), is reported even when the document closed: its bytes are not what
                // was written, though they parsed.
                let cutShort = rootClosed ? nil : "the file ends before </\(rootName ?? "HealthData")>: it was cut short"
                if stoppedEarly == nil, let reason = input.endedEarly ?? cutShort {
                    stoppedEarly = HealthImportReport.ParseStop(
                        file: name, line: Int(xmlTextReaderGetParserLineNumber(reader)), reason: reason)
                }
                return false
            }
            guard status == 1 else {
                if let error = input.readError {
                    throw CloudantError(
                        .invalidHealthExport, "Reading \(name) failed.", context: .init(field: name), underlying: error)
                }
                // libxml2's own message, when it gave one for this stop (not an earlier, recovered one).
                let fresh = diagnosticCount > diagnosticsAtLastElement && diagnosticCount <= Self.diagnosticLimit
                let reason = fresh ? diagnostics.last ?? "" : "libxml2 could not continue: the file is damaged"
                guard rootName != nil else {
                    throw notAnExport(input.bytesRead == 0 ? "it is empty" : "it is not XML (\(reason))")
                }
                // A fatal error mid-stream (a damaged or truncated file): what was read stays imported, and
                // the report says the import is incomplete.
                record("stopped: \(reason)")
                stoppedEarly = HealthImportReport.ParseStop(
                    file: name, line: Int(xmlTextReaderGetParserLineNumber(reader)), reason: input.endedEarly ?? reason)
                return false
            }
            let nodeType = xmlTextReaderNodeType(reader)
            let depth = xmlTextReaderDepth(reader)
            if depth == 0, nodeType == Int32(XML_READER_TYPE_END_ELEMENT.rawValue) { rootClosed = true }
            guard nodeType == Int32(XML_READER_TYPE_ELEMENT.rawValue) else { continue }
            if depth == 0 {
                let root = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
                guard root == "HealthData" else {
                    // The parser has read past the root's start tag; the node knows the line it starts on.
                    let line = xmlTextReaderCurrentNode(reader).map { Int(xmlGetLineNo($0)) }
                    throw notAnExport("its root element is <\(root)>, not <HealthData>", line: line)
                }
                rootName = root
                detachSubsetWithoutEntities()
                if xmlTextReaderIsEmptyElement(reader) == 1 { rootClosed = true }
                continue
            }
            guard depth == 1 else { continue }
            pendingSkip = true
            return true
        }
    }

    /// The refusal of an input that is not an Apple Health export, naming it and the line.
    private func notAnExport(_ why: String, line nodeLine: Int? = nil) -> CloudantError {
        let line = nodeLine ?? reader.map { Int(xmlTextReaderGetParserLineNumber($0)) } ?? 0
        return CloudantError(
            .invalidHealthExport,
            "\(name) is not an Apple Health export: \(why) (line \(line)). Pass export.zip, the apple_health_export "
                + "folder or its export.xml, as the Health app's \"Export All Health Data\" writes them.",
            context: .init(field: name))
    }
}
