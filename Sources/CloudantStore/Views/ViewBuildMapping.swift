internal import CloudantCore

/// What a first build's mapping keeps from batch to batch: the mapper and the row encoder, one list for the
/// rows of the document being mapped, and per view the rows emitted and the sequence of the last document that
/// emitted one (what the view's state records, counted here so the build need not scan its rows again for it).
///
/// Used on one thread at a time: the build's, or the sorting thread of a ``ViewBuildPipeline``.
final class ViewBuildMapping {
    let mapper: any ViewBatchMapper
    let encoder: ViewRowEncoder
    // Unchecked at run time as ``ViewBuildBatch``'s properties are: one thread, no overlapping access.
    @exclusivity(unchecked) private var emittedByView: [(rows: Int, seq: Int64)] = []
    @exclusivity(unchecked) private var rows: [EmittedRow] = []

    init(mapper: any ViewBatchMapper, encoder: ViewRowEncoder) {
        self.mapper = mapper
        self.encoder = encoder
    }

    /// Per view that emitted rows, how many and the sequence of the last document that emitted one.
    var emitted: [Int: (rows: Int, seq: Int64)] {
        var counted: [Int: (rows: Int, seq: Int64)] = [:]
        for (view, state) in emittedByView.enumerated() where state.rows > 0 { counted[view] = state }
        return counted
    }

    /// Maps a batch of documents through the batch mapper (a design function's engine takes them together),
    /// adding their rows to `batch`. Documents without JSON emit nothing.
    func map(_ documents: [ViewSourceDocument], into batch: ViewBuildBatch) throws {
        let live = documents.filter { $0.json != nil }
        var current: (mapped: Int, inBatch: Int) = (-1, -1)
        try mapper.forEachMapped(live) { index, view, rows in
            guard !rows.isEmpty else { return }
            let document = live[index]
            if current.mapped != index { current = (index, batch.addDocument(id: document.id, seq: document.seq)) }
            add(rows, view: view, of: document, as: current.inBatch, to: batch)
        }
    }

    /// Maps one document through a mapper that maps them one by one, adding its rows to `batch`.
    func map(_ document: ViewSourceDocument, with mapper: any ViewDocumentMapper, into batch: ViewBuildBatch) {
        guard document.json != nil else { return }
        mapper.map(document, into: &rows)
        guard !rows.isEmpty else { return }
        add(rows, view: 0, of: document, as: batch.addDocument(id: document.id, seq: document.seq), to: batch)
    }

    /// Encodes a document's rows of one view into the batch, and counts them.
    private func add(_ rows: [EmittedRow], view: Int, of document: ViewSourceDocument, as inBatch: Int, to batch: ViewBuildBatch) {
        encoder.encode(rows, view: view, document: inBatch, documentID: document.id, into: batch)
        while emittedByView.count <= view { emittedByView.append((0, 0)) }
        emittedByView[view].rows += rows.count
        emittedByView[view].seq = max(emittedByView[view].seq, document.seq)
    }
}
