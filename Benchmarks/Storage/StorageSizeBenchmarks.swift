import CloudantHealth
import Foundation

/// Bytes on disk, not time: what a store takes for the same documents with its bodies compressed
/// (``StoreOptions/compressesBodies``, the default) and kept as JSON text, beside the input itself.
///
/// - Health: a generated Apple Health export imported by `AppleHealthImporter` (indexes, projections and
///   the kind index included), measured after the import and again after `compact()` (which rewrites
///   the bodies written before their kind's dictionary was trained); the baseline is `export.xml`'s size.
///   CouchDB 3.5.0 kept the same 201,390 documents of the 200k export in 162 MB after compaction
///   (803 bytes per document), measured once on this machine: recorded beside ours, not rerun.
/// - Generic: the bulk-insert benchmark's 100,000 documents of about 1 KB; the baseline is raw SQLite
///   holding the same rows (id, rev, body, seq) uncompressed. CouchDB 3.5.1, built from source on this
///   machine, kept the same 100,000 documents (written with `_bulk_docs` 1,000 at a time) in 31.4 MB after
///   compaction, 314 bytes per document with one shard or two: recorded beside ours, not rerun.
///
/// Each figure is the file after a checkpoint (`PRAGMA wal_checkpoint(TRUNCATE)`), so the log holds nothing.
enum StorageSizeBenchmarks {
    /// CouchDB 3.5.0's bytes per document for the 200k generated export after compaction (measured once).
    static let couchDBBytesPerHealthDocument = 803
    /// CouchDB 3.5.1's bytes per document for the 100,000 generic documents after compaction (measured once).
    static let couchDBBytesPerGenericDocument = 314

    static func run(healthRecords: Int, documents: Int) async throws {
        try await generic(documents: documents)
        try await health(records: healthRecords)
    }

    private static func generic(documents: Int) async throws {
        let workload = Workload(count: documents, batchSize: 1000)
        let folder = Scratch.folder("storage-generic")
        defer { Scratch.remove(folder) }
        let raw = try RawSQLite(path: folder.appendingPathComponent("raw.sqlite").path, sequenceIndex: true)
        try raw.insert(workload.batches)
        let rawBytes = try raw.checkpointedSize()
        let parsed = try workload.batches.map { batch in try batch.map { try JSONValue(parsing: $0.body) } }
        print("\nStorage: \(documents) generic documents of about 1 KB (\(rawBytes / Int64(documents)) bytes each in raw SQLite)")
        for compressed in [false, true] {
            var options = StoreOptions()
            options.compressesBodies = compressed
            let store = try DocumentStore.open(
                name: compressed ? "compressed" : "plain", in: StoreDirectory(path: folder.path), options: options)
            for batch in parsed { _ = try await store.bulkDocs(batch) }
            _ = try await store.compact(progress: nil)
            let stats = try await store.storageStats()
            try store.close()
            let name = compressed ? "store, bodies compressed (default), compacted" : "store, bodies as JSON text"
            record(
                "Storage: \(documents) generic ~1 KB documents: \(name)", stats: stats, documents: documents,
                baselineName: "raw SQLite rows (id, rev, body, seq)", baselineBytes: rawBytes,
                target: "CouchDB 3.5.1 (compacted): \(couchDBBytesPerGenericDocument) B/doc")
        }
    }

    private static func health(records: Int) async throws {
        let export = try HealthImportBenchmarks.generatedExport(records: records)
        let xml = export.appendingPathComponent("apple_health_export/export.xml")
        let xmlBytes = (try FileManager.default.attributesOfItem(atPath: xml.path)[.size] as? Int64) ?? 0
        print(String(format: "\nStorage: the generated Apple Health export of %d records (export.xml %.1f MB)", records,
                     Double(xmlBytes) / 1_048_576))
        for compressed in [false, true] {
            let folder = Scratch.folder("storage-health")
            defer { Scratch.remove(folder) }
            var options = StoreOptions(registry: try EntityRegistry(plugins: [HealthPlugin()]))
            options.compressesBodies = compressed
            let store = try DocumentStore.open(name: "health", in: StoreDirectory(path: folder.path), options: options)
            _ = try await AppleHealthImporter(store: store).importExport(at: xml, workDirectory: folder)
            let imported = try await store.storageStats()
            let documents = imported.liveDocuments
            let target = "≤ export.xml; CouchDB 3.5 (compacted): \(couchDBBytesPerHealthDocument) B/doc"
            if compressed {
                record(
                    "Storage: health import of \(records) records: bodies compressed (default), as imported",
                    stats: imported, documents: documents, baselineName: "export.xml", baselineBytes: xmlBytes, target: target)
            }
            _ = try await store.compact(progress: nil)
            let compacted = try await store.storageStats()
            try store.close()
            record(
                "Storage: health import of \(records) records: "
                    + (compressed ? "bodies compressed (default), compacted" : "bodies as JSON text, compacted"),
                stats: compacted, documents: documents, baselineName: "export.xml", baselineBytes: xmlBytes, target: target)
        }
    }

    /// Prints the figure with its structures and adds it to the Markdown report.
    private static func record(
        _ workload: String, stats: StorageStats, documents: Int, baselineName: String, baselineBytes: Int64, target: String
    ) {
        let perDocument = documents > 0 ? stats.fileSize / Int64(documents) : 0
        print(String(format: "  %@: %.1f MB, %d B/doc, bodies %.2f× smaller than their JSON; %@ %.1f MB → %.2f×",
                     workload, Double(stats.fileSize) / 1_048_576, perDocument, stats.bodyCompressionRatio, baselineName,
                     Double(baselineBytes) / 1_048_576, Double(stats.fileSize) / Double(max(baselineBytes, 1))))
        for structure in stats.structures.prefix(8) {
            print(String(format: "      %-28@ %8.1f MB  %5d B/doc", structure.name as NSString,
                         Double(structure.bytes) / 1_048_576, documents > 0 ? structure.bytes / Int64(documents) : 0))
        }
        let largest = stats.structures.prefix(4).map { "\($0.name) \(documents > 0 ? $0.bytes / Int64(documents) : 0)" }
        MarkdownReport.shared.record(.init(
            workload: workload,
            ours: String(format: "%.1f MB, %d B/doc (bodies %.2f×; %@)", Double(stats.fileSize) / 1_048_576, perDocument,
                         stats.bodyCompressionRatio, largest.joined(separator: ", ")),
            baseline: String(format: "%@: %.1f MB", baselineName, Double(baselineBytes) / 1_048_576),
            ratio: String(format: "%.2f×", Double(stats.fileSize) / Double(max(baselineBytes, 1))),
            target: target))
    }
}
