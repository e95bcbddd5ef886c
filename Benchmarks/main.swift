import Foundation

// Usage: swift run -c release cloudant-benchmarks [layer|store|all] [--documents N] [--repetitions N]
// Every group prints medians and "candidate ÷ baseline" ratios measured in this same run.

var arguments = CommandLine.arguments.dropFirst()
var selection = "all"
var documents = 100_000
var repetitions = 5
while let argument = arguments.popFirst() {
    switch argument {
    case "--documents": documents = arguments.popFirst().flatMap { Int($0) } ?? documents
    case "--repetitions": repetitions = arguments.popFirst().flatMap { Int($0) } ?? repetitions
    default: selection = argument
    }
}

#if DEBUG
print("warning: a debug build; run with `swift run -c release cloudant-benchmarks` for numbers worth quoting")
#endif

do {
    if selection == "layer" || selection == "all" {
        try SQLiteLayerBenchmarks.run(documents: documents, repetitions: repetitions)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
