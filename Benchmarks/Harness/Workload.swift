import Foundation

/// The rows every storage benchmark writes: a document id, a revision, a ~1 KB JSON body and a sequence.
struct Workload {
    struct Row {
        var id: String
        var rev: String
        var body: [UInt8]
        var seq: Int64
    }

    var rows: [Row]
    var batchSize: Int

    /// `count` rows of about `bodySize` bytes of realistic JSON, deterministic for a given count.
    init(count: Int, batchSize: Int, bodySize: Int = 1000) {
        self.batchSize = batchSize
        var generator = SplitMix64(seed: 42)
        rows = (0..<count).map { index in
            let id = String(format: "doc-%08d", index)
            let rev = "1-" + String(format: "%016llx%016llx", generator.next(), generator.next())
            var body = #"{"_id":"\#(id)","type":"HKQuantitySample","value":\#(generator.next() % 200),"#
            body += #""unit":"count/min","startDate":"2026-11-21T10:00:00.000Z","note":""#
            while body.utf8.count < bodySize - 2 { body += "abcdefghij" }
            body += #""}"#
            return Row(id: id, rev: rev, body: Array(body.utf8), seq: Int64(index + 1))
        }
    }

    /// Ids to read back, in a shuffled but deterministic order.
    func readOrder(count: Int) -> [String] {
        var generator = SplitMix64(seed: 7)
        return (0..<count).map { _ in rows[Int(generator.next() % UInt64(rows.count))].id }
    }

    var batches: [ArraySlice<Row>] {
        stride(from: 0, to: rows.count, by: batchSize).map { rows[$0..<min($0 + batchSize, rows.count)] }
    }
}

/// A tiny deterministic random generator, so every run writes the same data.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A fresh folder per benchmark case, removed afterwards.
enum Scratch {
    static func folder(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-bench-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}
