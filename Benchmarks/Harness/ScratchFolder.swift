import Foundation

/// A benchmark's scratch folder, made again empty for each repetition that asks (``fresh()``), so every run
/// starts from no file at all; removed when the benchmark is done.
final class ScratchFolder {
    private let name: String
    /// The folder the latest ``fresh()`` made.
    private(set) var current: URL

    init(_ name: String) {
        self.name = name
        current = Scratch.folder(name)
    }

    /// Removes the current folder and makes a new empty one.
    @discardableResult
    func fresh() -> URL {
        Scratch.remove(current)
        current = Scratch.folder(name)
        return current
    }

    /// Removes the current folder.
    func remove() { Scratch.remove(current) }
}

/// The raw SQLite cases the write benchmarks measure themselves against, each writing the same batches into a
/// fresh file: the rows alone (the baseline) and with the unique index on `seq` a changes feed needs (the floor).
final class RawSQLiteCases {
    private let scratch: ScratchFolder
    private let batches: [ArraySlice<Workload.Row>]
    private var raw: RawSQLite?

    init(writing batches: [ArraySlice<Workload.Row>], in scratch: ScratchFolder) {
        self.batches = batches
        self.scratch = scratch
    }

    /// The rows alone.
    func baseline(named name: String) -> BenchmarkGroup.Case { rawCase(name) }

    /// The floor: the rows with the sequence index. Its log is checkpointed as the store's is, by the writer
    /// once per 1,000 new pages (SQLite's default; see `LogCheckpointer`).
    var floors: [BenchmarkGroup.Case] {
        [rawCase("raw SQLite + the seq index (the floor)", sequenceIndex: true)]
    }

    private func rawCase(_ name: String, sequenceIndex: Bool = false) -> BenchmarkGroup.Case {
        .init(
            name: name,
            setUp: {
                self.raw = try RawSQLite(
                    path: self.scratch.fresh().appendingPathComponent("raw.sqlite").path, sequenceIndex: sequenceIndex)
            },
            body: { try self.raw?.insert(self.batches) }, tearDown: { self.raw = nil })
    }
}
