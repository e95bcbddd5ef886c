import Foundation

// Usage: swift run -c release cloudant-benchmarks [layer|p1|p2|p8|live|store|audit|p3|p4|index-writes|query|p5-local|sync|p9|p10|sync-scale|queue|p7|cda|care|care-health|models|attachments|all]
//            [--documents N] [--model-objects N] [--single-writes N] [--open-documents N] [--query-documents N] [--sync-documents N] [--attachment-mb N] [--repetitions N]
// Every group prints medians and "candidate ÷ baseline" ratios measured in this same run.

var arguments = CommandLine.arguments.dropFirst()
var selectionArgument = "all"
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
    default: selectionArgument = argument
    }
}

#if DEBUG
print("warning: a debug build; run with `swift run -c release cloudant-benchmarks` for numbers worth quoting")
#endif

let selection = selectionArgument
func selected(_ names: String...) -> Bool { selection == "all" || names.contains(selection) }

do {
    if selected("layer") { try await SQLiteLayerBenchmarks.run(documents: documents, repetitions: repetitions) }
    if selected("p1", "store") { try await StoreBenchmarks.bulkInsert(documents: documents, repetitions: repetitions) }
    if selected("p2", "store") { try await StoreBenchmarks.singleWrites(documents: singleWrites, repetitions: repetitions) }
    if selected("p8", "store") { try await OpenBenchmark.run(documents: openDocuments, repetitions: 10) }
    if selected("live", "store") { try await LiveQueryBenchmark.run(documents: openDocuments, writes: 2_000, repetitions: repetitions) }
    if selected("p-http", "server") { try await ServerBenchmarks.run(repetitions: repetitions) }
    if selected("audit", "server") { try await AuditBenchmarks.run(repetitions: repetitions) }
    if selected("json-parse", "query") { try await JSONParseBenchmark.run(repetitions: repetitions) }
    if selected("find-latency", "query") { try await FindLatencyBenchmark.run(documents: 100_000, repetitions: repetitions) }
    if selection == "index-build" { try await QueryBenchmarks.indexBuildOnly(documents: queryDocuments, repetitions: repetitions) }
    if selected("p3", "p4", "query") { try await QueryBenchmarks.run(documents: queryDocuments, repetitions: repetitions) }
    if selected("p5", "p5-local", "sync") { try await SyncBenchmarks.localPull(documents: syncDocuments, repetitions: repetitions) }
    if selected("p9", "p10", "sync-scale") {
        try await SyncScaleBenchmarks.run(documents: openDocuments, batch: syncDocuments / 2, repetitions: repetitions)
    }
    if selected("queue", "sync") { try await QueueReplayBenchmarks.run(writes: 10_000, repetitions: repetitions) }
    if selected("p7", "cda") { try await CDABenchmarks.run(repetitions: repetitions) }
    // --health-records N quantity samples (1M by default): issue 24's year chart.
    if selected("chart", "health") { try await HealthChartBenchmarks.run(samples: healthRecords, repetitions: repetitions) }
    if selected("p6", "health") { try await HealthImportBenchmarks.run(records: healthRecords, repetitions: repetitions) }
    if selected("care") { try await CareBenchmarks.run(outcomes: queryDocuments, repetitions: repetitions) }  // --query-documents N outcomes
    // --health-records N step samples (1M by default): a daily step task's outcomes over one year.
    if selected("care-health") { try await LinkedOutcomeBenchmarks.run(samples: healthRecords, repetitions: repetitions) }
    if selected("models") { try await ModelBenchmarks.run(objects: modelObjects, repetitions: repetitions) }
    if selected("attachments") { try await AttachmentBenchmarks.run(megabytes: attachmentMegabytes, repetitions: min(repetitions, 3)) }
    if selected("index-writes", "query") { try await QueryBenchmarks.writesWithIndexes(documents: documents, repetitions: repetitions) }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
