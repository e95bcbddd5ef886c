internal import CloudantCore

/// Everything the store needs to keep one view index: its identity, how its keys collate, which documents
/// it maps, and what maps them (a design document's JavaScript, or a Swift view's closure).
struct ViewIndexSpec: Sendable {
    /// The index's signature: a new one means a new index.
    var signature: String
    /// `javascript` or `swift`.
    var language: String
    /// What the catalogue records about the index.
    var definition: JSONValue
    /// The key encoding of each view of the index.
    var encodings: [ViewKeyEncoding]
    /// Whether rows are kept under their document's partition.
    var partitioned: Bool
    /// Whether design documents are mapped too (`options.include_design`).
    var includesDesignDocuments: Bool
    /// Whether documents carry `_local_seq` (`options.local_seq`).
    var includesLocalSequence: Bool
    /// Per view, the reduce functions whose partials the index keeps in reduction blocks
    /// (``ViewReductionBlocks``).
    var reductions: [[ViewBlockReduction]] = []
    /// Makes what maps documents, once per update.
    var makeMapper: @Sendable () throws -> any ViewBatchMapper
}

/// Maps a batch of documents (their JSON as CouchDB hands it to map functions) to the rows each view emits.
protocol ViewBatchMapper {
    /// How the mapper wants documents read: whole (a design function's runtime parses each one), or as their
    /// stored bodies (a Swift view's closure reads members one by one).
    var documentForm: ViewSourceDocuments.Form { get }

    /// For each document, for each view, the rows emitted.
    func map(_ documents: [ViewSourceDocument]) throws -> [[[EmittedRow]]]

    /// Hands `body` each document's rows, view by view (a document's index in `documents`, the view's index,
    /// its rows, empty when it emitted none), in document order. A mapper that maps one document at a time
    /// hands them over as it goes, without holding a batch's rows.
    func forEachMapped(_ documents: [ViewSourceDocument], _ body: (_ document: Int, _ view: Int, _ rows: [EmittedRow]) throws -> Void) throws
}

extension ViewBatchMapper {
    var documentForm: ViewSourceDocuments.Form { .assembled }

    func forEachMapped(_ documents: [ViewSourceDocument], _ body: (_ document: Int, _ view: Int, _ rows: [EmittedRow]) throws -> Void) throws {
        for (document, views) in try map(documents).enumerated() {
            for (view, rows) in views.enumerated() { try body(document, view, rows) }
        }
    }
}

/// A mapper that maps one document at a time, in Swift: a first build hands it each document as it is read
/// instead of a batch of them (``ViewSourceDocuments/forEach(after:by:limit:includeDesign:localSeq:form:reusingBuffer:in:_:)``).
protocol ViewDocumentMapper: ViewBatchMapper, Sendable {
    /// Replaces `rows` with the rows `document` emits.
    func map(_ document: ViewSourceDocument, into rows: inout [EmittedRow])
}

/// A design document's map functions run by a `DesignFunctionRuntime`.
struct RuntimeBatchMapper: ViewBatchMapper {
    let mapper: any DocumentMapper

    func map(_ documents: [ViewSourceDocument]) throws -> [[[EmittedRow]]] {
        try mapper.map(documents: documents.map { $0.json ?? [] })
    }
}

extension ViewIndexSpec {
    /// The name `/_active_tasks` gives an update of the index: its design document's id (`_design/stats`),
    /// or a Swift view's name.
    var taskName: String {
        definition["design_document"]?.stringValue ?? definition["swift_view"]?.stringValue ?? signature
    }
}
