import Foundation

// Usage: cloudant-benchmarks [AREA | BENCHMARK | all] [--markdown FILE|-] [--repetitions N] [sizes…]
//   areas and their benchmarks: layer; store (bulk-insert, single-writes, open, leaves, long-history, live); server (http, audit);
//   query (json-parse, find-latency, indexed-queries, index-writes; index-build alone); sync (pull, sync-scale,
//   queue); health (cda, chart, import); storage (bytes on disk); care; care-health; models; attachments;
//   views (view-build-js, view-build-swift, group-level, view-memory).
//   sizes: --documents N --single-writes N --open-documents N --query-documents N --sync-documents N
//          --health-records N --model-objects N --attachment-mb N
// Every benchmark prints medians and "ours ÷ baseline" ratios measured in this same run; with --markdown, each
// area's table in FILE (Benchmarks/README.md) is replaced by this run's (see MarkdownReport), `-` prints them.

var arguments = CommandLine.arguments.dropFirst()
var selectionArgument = "all"
var markdownFile: String?
var documents = 100_000
var singleWrites = 5_000
var openDocuments = 1_000_000
var repetitions = 5
var queryDocuments = 1_000_000
var syncDocuments = 100_000
var healthRecords = 1_000_000
var modelObjects = 100_000
var attachmentMegabytes = 1_000
while let argument = arguments.popFirst() {
    switch argument {
    case "--documents": documents = arguments.popFirst().flatMap { Int($0) } ?? documents
    case "--single-writes": singleWrites = arguments.popFirst().flatMap { Int($0) } ?? singleWrites
    case "--open-documents": openDocuments = arguments.popFirst().flatMap { Int($0) } ?? openDocuments
    case "--repetitions": repetitions = arguments.popFirst().flatMap { Int($0) } ?? repetitions
    case "--query-documents": queryDocuments = arguments.popFirst().flatMap { Int($0) } ?? queryDocuments
    case "--sync-documents": syncDocuments = arguments.popFirst().flatMap { Int($0) } ?? syncDocuments
    case "--health-records": healthRecords = arguments.popFirst().flatMap { Int($0) } ?? healthRecords
    case "--model-objects": modelObjects = arguments.popFirst().flatMap { Int($0) } ?? modelObjects
    case "--attachment-mb": attachmentMegabytes = arguments.popFirst().flatMap { Int($0) } ?? attachmentMegabytes
    case "--markdown": markdownFile = arguments.popFirst()
    default: selectionArgument = argument
    }
}

#if DEBUG
print("warning: a debug build; build with -c release for numbers worth quoting")
#endif

let selection = selectionArgument
let report = MarkdownReport.shared

/// Whether the benchmark `name` of `area` runs: when it, its area or everything was asked for.
func selected(_ area: String, _ name: String) -> Bool {
    guard selection == "all" || selection == area || selection == name else { return false }
    report.begin(area: area)
    return true
}

do {
    if selected("layer", "layer") { try await SQLiteLayerBenchmarks.run(documents: documents, repetitions: repetitions) }
    if selected("store", "bulk-insert") { try await StoreBenchmarks.bulkInsert(documents: documents, repetitions: repetitions) }
    if selected("store", "single-writes") {
        try await StoreBenchmarks.singleWrites(documents: singleWrites, repetitions: repetitions)
    }
    if selected("store", "open") { try await OpenBenchmark.run(documents: openDocuments, repetitions: 10) }
    if selected("store", "leaves") { try await ConflictingLeavesBenchmark.run(leaves: 10_000, repetitions: repetitions) }
    if selected("store", "long-history") { try await LongHistoryBenchmark.run(repetitions: repetitions) }
    if selected("store", "live") {
        try await LiveQueryBenchmark.run(documents: openDocuments, writes: 2_000, repetitions: repetitions)
    }
    if selected("server", "http") { try await ServerBenchmarks.run(repetitions: repetitions) }
    if selected("server", "audit") { try await AuditBenchmarks.run(repetitions: repetitions) }
    if selected("query", "json-parse") { try await JSONParseBenchmark.run(repetitions: repetitions) }
    if selected("query", "find-latency") { try await FindLatencyBenchmark.run(documents: 100_000, repetitions: repetitions) }
    if selection == "index-build" {
        report.begin(area: "query")
        try await QueryBenchmarks.indexBuildOnly(documents: queryDocuments, repetitions: repetitions)
    }
    if selected("query", "indexed-queries") { try await QueryBenchmarks.run(documents: queryDocuments, repetitions: repetitions) }
    if selected("sync", "pull") { try await SyncBenchmarks.localPull(documents: syncDocuments, repetitions: repetitions) }
    if selected("sync", "sync-scale") {
        try await SyncScaleBenchmarks.run(documents: openDocuments, batch: syncDocuments / 2, repetitions: repetitions)
    }
    if selected("sync", "queue") { try await QueueReplayBenchmarks.run(writes: 10_000, repetitions: repetitions) }
    if selected("health", "cda") { try await CDABenchmarks.run(repetitions: repetitions) }
    // --health-records N quantity samples (1M by default): a year's chart among them.
    if selected("health", "chart") { try await HealthChartBenchmarks.run(samples: healthRecords, repetitions: repetitions) }
    if selected("health", "import") { try await HealthImportBenchmarks.run(records: healthRecords, repetitions: repetitions) }
    // Bytes on disk: --documents generic documents and --health-records health samples, compressed and not.
    if selected("storage", "storage") {
        try await StorageSizeBenchmarks.run(healthRecords: healthRecords, documents: documents)
    }
    // --query-documents N outcomes.
    if selected("care", "care") { try await CareBenchmarks.run(outcomes: queryDocuments, repetitions: repetitions) }
    // --health-records N step samples (1M by default): a daily step task's outcomes over one year.
    if selected("care-health", "care-health") {
        try await LinkedOutcomeBenchmarks.run(samples: healthRecords, repetitions: repetitions)
    }
    if selected("models", "models") { try await ModelBenchmarks.run(objects: modelObjects, repetitions: repetitions) }
    if selected("attachments", "attachments") {
        try await AttachmentBenchmarks.run(megabytes: attachmentMegabytes, repetitions: min(repetitions, 3))
    }
    if selected("query", "index-writes") {
        try await QueryBenchmarks.writesWithIndexes(documents: documents, repetitions: repetitions)
    }
    // --query-documents N documents (1M by default): view builds, a group_level query and a build's peak memory.
    let viewParts = ViewBenchmarks.Part.allCases.filter { selected("views", $0.rawValue) }
    if !viewParts.isEmpty { try await ViewBenchmarks.run(documents: queryDocuments, repetitions: repetitions, parts: Set(viewParts)) }
    if let markdownFile {
        let command = (["cloudant-benchmarks"] + CommandLine.arguments.dropFirst().filter { $0 != markdownFile && $0 != "--markdown" })
            .joined(separator: " ")
        try report.write(to: markdownFile, command: command)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
