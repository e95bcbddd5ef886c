import CloudantOnly
import Foundation

/// Live queries: what 100 observers add to each write into a store of `documents` documents
/// (target: under 2 ms per write). The baseline is the same writes with no live query, so no change pump
/// runs; the candidates wait, after the last write, until the pump has handed every write to every observer
/// (a sentinel write that one more watcher reports), so work deferred past the writes is counted.
enum LiveQueryBenchmark {
    static let observers = 100

    static func run(documents: Int, writes: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("live")
        defer { Scratch.remove(folder) }
        let store = try DocumentStore.open(name: "live", in: StoreDirectory(path: folder.path))
        print("\nLive queries: building a store of \(documents) documents for 1,000 patients (untimed)…")
        let batchSize = 10_000
        for start in stride(from: 0, to: documents, by: batchSize) {
            let batch: [JSONValue] = (start..<min(start + batchSize, documents)).map { index in
                [
                    "_id": .string(String(format: "doc-%08d", index)), "patient": .string("p\(index % 1_000)"),
                    "v": .number(JSONNumber(index)),
                ]
            }
            _ = try await store.bulkDocs(batch)
        }
        _ = try await store.createIndex(try IndexDefinition(indexRequest: ["index": ["fields": ["patient", "v"]]]))

        var running: [Task<Void, Never>] = []
        let rounds = ReadyCount()
        func write(patient: @escaping @Sendable (Int) -> String, waitForPump: Bool = true) -> () async throws -> Void {
            {
                rounds.increment()
                let prefix = "w\(rounds.value)-"
                let sentinel = prefix + "sentinel"
                let signals = waitForPump ? try store.observeChanges { $0.id == sentinel } : nil
                for index in 0..<writes {
                    try await store.put([
                        "_id": .string(prefix + String(index)), "patient": .string(patient(index)), "v": .number(JSONNumber(-index)),
                    ])
                }
                try await store.put(["_id": .string(sentinel)])
                if let signals { for await _ in signals { break } }
            }
        }
        let startObservers: () async throws -> Void = {
            let ready = ReadyCount()
            for patient in 0..<observers {
                let request = try FindRequest(
                    JSONValue(parsing: #"{"selector":{"patient":"p\#(patient)"},"sort":["patient","v"],"limit":20}"#))
                let live = store.observe(request)
                running.append(Task {
                    do { for try await _ in live { ready.increment() } } catch { print("live query failed: \(error)") }
                })
            }
            while ready.value < observers { try await Task.sleep(for: .milliseconds(1)) }
        }
        let stopObservers: () async throws -> Void = {
            running.forEach { $0.cancel() }
            running = []
        }
        try await BenchmarkGroup(
            name: "Live queries: \(writes) single-document writes into \(documents) documents",
            unit: "writes", operations: writes,
            baseline: .init(name: "no live query (no change pump)", body: write(patient: { _ in "nobody" }, waitForPump: false)),
            candidates: [
                .init(
                    name: "\(observers) live queries, none affected", setUp: startObservers,
                    body: write(patient: { _ in "nobody" }), tearDown: stopObservers),
                .init(
                    name: "\(observers) live queries, each write enters one", setUp: startObservers,
                    body: write(patient: { "p\($0 % observers)" }), tearDown: stopObservers),
            ],
            target: nil
        ).run(repetitions: repetitions, extraPerOperation: true)
        print("  (target: under 2 ms extra per write with \(observers) live queries)")
    }
}

/// A counter shared with the observers' tasks (results seen, rounds run).
private final class ReadyCount: @unchecked Sendable {
    // `lock` protects `count`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
