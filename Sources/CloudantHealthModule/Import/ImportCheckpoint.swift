internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// How far an import of one export has committed: the top-level elements of `export.xml` whose documents are
/// all in the store, and the report as it stood there. Kept in a `_local/` document (not replicated) named
/// after the export, written after each batch commits, removed when an import reads the export to its end.
///
/// An import that stops before the end (a cut-short or damaged file, a cancelled task, a crash) leaves it, and
/// the next import of the same export passes over those elements without reading them again and goes on
/// from there. The checkpoint may lag behind the store (a batch committed, its checkpoint not yet written):
/// the elements after it are read again and found unchanged, so a lag costs time, never a document.
struct ImportCheckpoint: Codable, Sendable {
    /// Top-level elements of `export.xml` handled and committed.
    var elements: Int
    /// The line the last of them was read at.
    var line: Int?
    /// The report up to there.
    var report: HealthImportReport
}

/// Reads and writes the checkpoint of one export in one store.
struct ImportCheckpointStore: Sendable {
    let store: DocumentStore
    /// `_local/health-import-<identity>`.
    let id: String

    /// The checkpoint store for the export whose first bytes are `head`; `nil` when they do not name one
    /// (no `<ExportDate>` near the start: nothing to tell this export from another).
    init?(store: DocumentStore, head: ArraySlice<UInt8>) {
        guard let identity = Self.exportIdentity(head: head) else { return nil }
        self.store = store
        self.id = "_local/health-import-" + identity
    }

    /// A digest of everything up to and including `<ExportDate …/>`: the DTD, the locale and the export's time
    /// to the second. A cut-short copy of an export and the whole file share it; two exports do not.
    static func exportIdentity(head: ArraySlice<UInt8>) -> String? {
        let bytes = Array(head)
        guard let start = find(Array("<ExportDate".utf8), in: bytes, from: 0),
            let close = find(Array("/>".utf8), in: bytes, from: start)
        else { return nil }
        return ImportKey.hexGroups(ImportKey.md5(Array(bytes[..<(close + 2)]))).replacingOccurrences(of: "-", with: "")
    }

    func load() async -> ImportCheckpoint? {
        guard let object = try? await store.localDocument(id: id) else { return nil }
        return try? JSONValue.object(object)["checkpoint"]?.decode(ImportCheckpoint.self)
    }

    func save(_ checkpoint: ImportCheckpoint) async throws {
        let body: JSONObject = ["checkpoint": try JSONValue(encoding: checkpoint)]
        try await store.putLocal(id: id, body: body, rev: currentRevision(), lastWriterWins: true)
    }

    /// Removes the checkpoint (the export was read to its end), whatever its revision: in one write, so no
    /// read of its revision can fall behind the import's last save. (Reading the revision on a reader and
    /// deleting that one failed a whole import once, under a loaded test run, with a conflict.)
    func clear() async throws {
        do {
            try await store.deleteLocal(id: id, rev: nil, lastWriterWins: true)
        } catch let error as CloudantError where error.code == .notFound {
            // No checkpoint was saved (an export read in one batch).
        }
    }

    private func currentRevision() async -> String? {
        (try? await store.localDocument(id: id))?["_rev"]?.stringValue
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
        }
        return nil
    }
}
