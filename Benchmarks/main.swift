import Foundation

// Usage: swift run -c release cloudant-benchmarks [layer|p1|p2|p8|store|all]
//            [--documents N] [--single-writes N] [--open-documents N] [--repetitions N]
// Every group prints medians and "candidate ÷ baseline" ratios measured in this same run.

var arguments = CommandLine.arguments.dropFirst()
var selectionArgument = "all"
var documents = 100_000
var singleWrites = 5_000
var openDocuments = 1_000_000
var repetitions = 5
while let argument = arguments.popFirst() {
    switch argument {
    case "--documents": documents = arguments.popFirst().flatMap { Int($0) } ?? documents
    case "--single-writes": singleWrites = arguments.popFirst().flatMap { Int($0) } ?? singleWrites
    case "--open-documents": openDocuments = arguments.popFirst().flatMap { Int($0) } ?? openDocuments
    case "--repetitions": repetitions = arguments.popFirst().flatMap { Int($0) } ?? repetitions
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
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
