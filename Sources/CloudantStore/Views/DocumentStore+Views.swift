public import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    /// Queries a view of a design document, as CouchDB's `GET /db/_design/{ddoc}/_view/{view}` answers.
    ///
    /// The index is brought up to date first (unless `query.update` says otherwise), from the documents
    /// changed since it last was; a design document whose views changed gets a new index.
    ///
    /// ```swift
    /// var query = ViewQuery()
    /// query.startKey = ["2024-05-01"]
    /// query.groupLevel = 1
    /// let perDay = try await store.queryView(designDocument: "stats", view: "by_day", query: query)
    /// ```
    /// - Parameters:
    ///   - designDocument: The design document's name, with or without `_design/`.
    ///   - view: The view's name in the design document.
    ///   - query: The parameters of the query (keys, ranges, reduce and grouping, limits); a partitioned view
    ///     takes its partition from `query.partition` (`/db/_partition/{p}/_design/…`).
    ///   - limits: The ceilings of `query.limit` (a partitioned view is held to `partitionQuery`); a query
    ///     that names no limit runs with its ceiling.
    /// - Throws: `CloudantError` `.notFound` for a design document or view that does not exist
    ///   (`missing_named_view`), `.invalidInput` with `QueryErrorKind.queryParseError` for
    ///   parameters the view refuses, `.notImplemented` when the store has no engine for the design
    ///   document's language; `CloudantError` `.designFunctionFailed` when a map or reduce function fails (a
    ///   function that runs past the engine's time limit is `os_process_error`).
    public func queryView(
        designDocument: String, view: String, query: ViewQuery = ViewQuery(), limits: QueryLimits = .couchDBDefaults
    ) async throws -> ViewResult {
        let (definition, spec) = try await designViewIndex(designDocument)
        let partitioned = spec.partitioned
        guard let lookup = definition.lookUp(view, reduce: query.reduce) else {
            throw CloudantError(.notFound, "missing_named_view", context: .init(documentID: definition.designDocumentID, field: view))
        }
        let kind: ViewQuery.Kind
        let position: Int
        var reducer: ViewReducer?
        switch lookup {
        case .map(let view):
            (kind, position) = (.map, view)
        case .reduce(let view, let function):
            (kind, position) = (.reduce, view)
            let source = definition.views[view].reduces[function].source
            if let builtIn = BuiltInReduce(source) {
                reducer = .builtIn(builtIn)
            } else {
                let context = "\(name)/\(definition.designDocumentID)/_view/\(view)"
                reducer = .runtime(source: source, runtime: try runtime(for: definition.language), context: context)
            }
        }
        // CouchDB's `apply_limit` comes after the view is found and before the other parameters are checked.
        var query = query
        query.limit = try limits.limit(query.limit, partitioned: partitioned)
        let grouping = try query.validated(kind: kind, partitioned: partitioned)
        try query.checkRange(raw: definition.views[position].rawCollation)
        return try await answer(
            spec, view: position, encoding: spec.encodings[position], query: query, grouping: grouping, reducer: reducer)
    }

    /// Queries a Swift view (see ``SwiftView``), with the same parameters and rows as a design document's.
    ///
    /// - Throws: `CloudantError` `.invalidInput` with `QueryErrorKind.queryParseError` for
    ///   parameters the view refuses; an error the reduce closure throws.
    public func queryView(_ view: SwiftView, query: ViewQuery = ViewQuery()) async throws -> ViewResult {
        let reduces = view.reduce != nil && query.reduce != false
        let grouping = try query.validated(kind: reduces ? .reduce : .map)
        try query.checkRange(raw: view.collation == .raw)
        var reducer: ViewReducer?
        if reduces, let reduce = view.reduce { reducer = reduce.builtIn.map(ViewReducer.builtIn) ?? .swift(reduce) }
        return try await answer(swiftViewIndex(view), view: 0, encoding: view.collation, query: query, grouping: grouping, reducer: reducer)
    }

    /// Brings a design document's view index up to date now (CouchDB's `_view_cleanup` does not; querying does).
    ///
    /// - Throws: as ``queryView(designDocument:view:query:limits:)``.
    public func updateViewIndex(designDocument: String) async throws {
        let (_, spec) = try await designViewIndex(designDocument)
        _ = try await updateIndex(spec)
    }

    /// Brings a Swift view's index up to date now.
    public func updateViewIndex(_ view: SwiftView) async throws {
        _ = try await updateIndex(swiftViewIndex(view))
    }

    // MARK: Answering

    private func answer(
        _ spec: ViewIndexSpec, view: Int, encoding: ViewKeyEncoding, query: ViewQuery, grouping: ViewQuery.Grouping,
        reducer: ViewReducer?
    ) async throws -> ViewResult {
        let index: StoredViewIndex?
        switch query.update {
        case .true:
            index = try await updateIndex(spec)
        case .false, .lazy:
            index = try await read(.storeUnreadable) { db in try ViewIndexCatalog.find(signature: spec.signature, in: db) }
        }
        // `update=lazy` answers from the index as it is and brings it up to date after answering, as CouchDB's
        // `update_after` does: started any earlier, the update could overtake the read.
        defer {
            if query.update == .lazy { Task { [weak self] in _ = try? await self?.updateIndex(spec) } }
        }
        guard let index else {
            // Never built, and not to be built now: an empty view.
            return reducer == nil
                ? ViewResult(totalRows: 0, offset: 0, updateSeq: query.updateSeq ? 0 : nil, rows: [])
                : ViewResult(totalRows: nil, offset: nil, updateSeq: query.updateSeq ? 0 : nil, rows: [])
        }
        let scan = ViewScan(table: index.tableName, view: view, encoding: encoding, partition: query.partition, query: query)
        return try await read(.storeUnreadable) { db in
            let state = try ViewIndexTable.states(of: index.tableName, in: db)[view] ?? (0, 0)
            if let reducer {
                return try ViewQueryExecutor.reduce(
                    scan, reducer: reducer, grouping: grouping, updateSeq: query.updateSeq ? state.updateSeq : nil, in: db)
            }
            return try ViewQueryExecutor.map(scan, state: state, updateSeq: query.updateSeq, in: db)
        }
    }

    /// Brings an index up to date on the maintenance thread; returns it.
    func updateIndex(_ spec: ViewIndexSpec) async throws -> StoredViewIndex {
        let path = fileURL.path
        let configuration = pool.configuration
        let maintenance = viewMaintenance
        do {
            return try await maintenance.run(path: path, configuration: configuration) { connection in
                try ViewIndexUpdater.update(spec, in: connection, reader: maintenance.documentReader, progress: maintenance.progress)
            }
        } catch {
            throw try storeFailure(error, .storeUnwritable, "The view index could not be brought up to date.")
        }
    }

    // MARK: Index specs

    /// A design document's views as an index spec, read from the stored design document.
    func designViewIndex(_ designDocument: String) async throws -> (ViewIndexDefinition, ViewIndexSpec) {
        let id = designDocument.hasPrefix("_design/") ? designDocument : "_design/" + designDocument
        let document = try await self.document(id: id)
        let definition = ViewIndexDefinition(designDocument: document)
        let partitioned = try await isPartitioned()
        return (definition, try spec(for: definition, databasePartitioned: partitioned))
    }

    /// The spec of a design document's view index.
    func spec(for definition: ViewIndexDefinition, databasePartitioned: Bool) throws -> ViewIndexSpec {
        let partitioned = databasePartitioned && (definition.partitioned ?? true)
        let runtime = options.designFunctions
        let language = definition.language
        let functions = MapFunctionSet(sources: definition.views.map(\.map), lib: definition.lib)
        var describe: JSONObject = ["design_document": .string(definition.designDocumentID)]
        describe["views"] = .array(definition.views.map { .string($0.map) })
        var options: [String] = []
        if definition.includesDesignDocuments { options.append("include_design") }
        if definition.includesLocalSequence { options.append("local_seq") }
        // Listed as couch_mrview_index lists it: when the design document says so, not when it is the default.
        if definition.partitioned == true { options.append("partitioned") }
        describe["update_options"] = .array(options.map(JSONValue.string))
        var spec = ViewIndexSpec(
            signature: definition.signature, language: language, definition: .object(describe),
            encodings: definition.views.map { $0.rawCollation ? .raw : .collation }, partitioned: partitioned,
            includesDesignDocuments: definition.includesDesignDocuments, includesLocalSequence: definition.includesLocalSequence,
            makeMapper: { [name] in
                guard let runtime else { throw Self.noRuntime(language: language, database: name) }
                guard runtime.languages.contains(language) else {
                    throw DesignFunctionError(name: "unknown_query_language", reason: language).error
                }
                return RuntimeBatchMapper(mapper: try runtime.makeMapper(functions))
            })
        spec.reductions = definition.views.map { view in
            view.reduces.compactMap { ViewBlockReduction(source: $0.source, runtime: runtime.flatMap { $0.languages.contains(language) ? $0 : nil }) }
        }
        return spec
    }

    /// A Swift view as an index spec.
    func swiftViewIndex(_ view: SwiftView) -> ViewIndexSpec {
        let map = view.map
        var spec = ViewIndexSpec(
            signature: view.signature, language: "swift",
            definition: ["swift_view": .string(view.name), "version": .number(JSONNumber(view.version))],
            encodings: [view.collation], partitioned: false, includesDesignDocuments: view.includeDesignDocuments,
            includesLocalSequence: false, makeMapper: { SwiftBatchMapper(map: map) })
        // The signature leaves out the reduce, so blocks follow the reduce the view has now.
        spec.reductions = [view.reduce?.builtIn.map { [ViewBlockReduction.builtIn($0)] } ?? []]
        return spec
    }

    /// The runtime for `language`.
    /// - Throws: `CloudantError` `.notImplemented` when the store has none; `CloudantError`
    ///   `unknown_query_language` (the language as its reason, CouchDB's 500) when its engine does not run
    ///   `language`.
    func runtime(for language: String) throws -> any DesignFunctionRuntime {
        guard let runtime = options.designFunctions else { throw Self.noRuntime(language: language, database: name) }
        guard runtime.languages.contains(language) else {
            throw DesignFunctionError(name: "unknown_query_language", reason: language).error
        }
        return runtime
    }

    static func noRuntime(language: String, database: String) -> CloudantError {
        CloudantError(
            .notImplemented,
            "This store runs no \(language) design functions: open it with an engine for them (StoreOptions.designFunctions, "
                + "JavaScriptEngine from the CloudantJavaScript product).",
            context: .init(database: database))
    }
}

/// A Swift view's map closure over documents, a batch or one at a time.
struct SwiftBatchMapper: ViewDocumentMapper {
    let map: SwiftView.Map

    var documentForm: ViewSourceDocuments.Form { .body }

    func map(_ documents: [ViewSourceDocument]) throws -> [[[EmittedRow]]] {
        var mapped: [[[EmittedRow]]] = []
        mapped.reserveCapacity(documents.count)
        try forEachMapped(documents) { _, _, rows in mapped.append([rows]) }
        return mapped
    }

    func forEachMapped(_ documents: [ViewSourceDocument], _ body: (_ document: Int, _ view: Int, _ rows: [EmittedRow]) throws -> Void) throws {
        // One list of rows for the whole batch, emptied for each document.
        var rows: [EmittedRow] = []
        for (index, document) in documents.enumerated() {
            map(document, into: &rows)
            try body(index, 0, rows)
        }
    }

    func map(_ document: ViewSourceDocument, into rows: inout [EmittedRow]) {
        rows.removeAll(keepingCapacity: true)
        do {
            try map(ViewDocument(document)) { key, value in rows.append(EmittedRow(key: key, value: value)) }
        } catch {
            // As a map function that throws: the document emits nothing.
            rows.removeAll(keepingCapacity: true)
        }
    }
}
