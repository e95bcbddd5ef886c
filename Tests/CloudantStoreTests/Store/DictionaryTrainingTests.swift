import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// What a kind's dictionary is trained from, and with how much memory: the trainer's smaller frequency table
/// (``Zstd/trainerFrequencyLog``) must not cost compression, and bodies too long for a dictionary to pay are
/// neither counted toward training nor sampled (``BodyDictionaryTraining/isSample(jsonLength:)``).
@Suite("Dictionary training")
struct DictionaryTrainingTests {
    /// A health sample's body as an import writes it, varied the way a year of one kind varies: values,
    /// times, ids, a few sources and devices, metadata on some.
    static func sample(_ random: inout SplitMix64) -> [UInt8] {
        let sources = ["Apple Watch de Ana", "iPhone", "Withings", "Oura"]
        let devices = ["Watch6,2", "Watch7,4", "iPhone14,2", "WBS05"]
        let minute = Int(random.next() % 525_600)
        let (day, hour, second) = (minute / 1_440, minute / 60 % 24, Int(random.next() % 60))
        let id = String(random.next(), radix: 16) + String(random.next(), radix: 16)
        let source = Int(random.next() % 4)
        let value = Double(random.next() % 20_000) / 100
        var json = #"{"_id":"\#(id)","device":{"hardware":"\#(devices[source])","manufacturer":"Apple Inc.","#
            + #""name":"\#(sources[source])"},"endDate":"2024-\#(day % 12 + 1)-\#(day % 28 + 1)T\#(hour):\#(second):00Z","#
            + #""entityType":"healthSample","source":{"bundleIdentifier":"com.apple.health.\#(source)","name":"\#(sources[source])"},"#
            + #""startDate":"2024-\#(day % 12 + 1)-\#(day % 28 + 1)T\#(hour):\#(second):00Z","#
            + #""typeIdentifier":"HKQuantityTypeIdentifierHeartRate","unit":"count/min","value":\#(value)"#
        if random.next() % 4 == 0 { json += #","metadata":{"HKMetadataKeyHeartRateMotionContext":\#(random.next() % 3)}"# }
        return Array((json + "}").utf8)
    }

    /// The bytes `bodies` take as frames with a dictionary trained from `samples` with a table of 2^`log`.
    static func compressedBytes(of bodies: [[UInt8]], trainedFrom samples: [[UInt8]], frequencyLog log: UInt32) throws -> Int {
        let trained = try #require(Zstd.trainDictionary(samples: TrainingSamples(samples), capacity: 16 << 10, level: BodyCodec.level, frequencyLog: log))
        let dictionary = try #require(BodyDictionary(id: 7, kind: "k", bytes: BodyDictionary.renumbered(trained, id: 7), level: BodyCodec.level))
        return try bodies.reduce(0) { total, body in total + (try #require(BodyCodec.compress(body, with: dictionary))).count }
    }

    @Test func theSmallerFrequencyTableCompressesAKindsBodiesAsWellAsZstdsDefault() throws {
        var random = SplitMix64(seed: 42)
        let samples = (0..<4_000).map { _ in Self.sample(&random) }
        let later = (0..<2_000).map { _ in Self.sample(&random) }
        let ours = try Self.compressedBytes(of: later, trainedFrom: samples, frequencyLog: Zstd.trainerFrequencyLog)
        let zstdDefault = try Self.compressedBytes(of: later, trainedFrom: samples, frequencyLog: 20)
        let json = later.reduce(0) { $0 + $1.count }
        // Frames a quarter of their JSON or smaller, within 2 % of what zstd's default table gives.
        #expect(ours * 4 < json, "\(ours) bytes of frames for \(json) bytes of JSON")
        #expect(Double(ours) <= Double(zstdDefault) * 1.02, "\(ours) bytes with 2^\(Zstd.trainerFrequencyLog), \(zstdDefault) with 2^20")
    }

    /// A workout route's body: a track of `points` locations, tens of kilobytes of JSON for a long one.
    static func route(_ index: Int, points: Int) -> JSONValue {
        let track = (0..<points).map { point -> JSONValue in
            ["latitude": .number(JSONNumber(Double(index * 1_000 + point) / 7_919)),
             "longitude": .number(JSONNumber(Double(point * 31 + index) / 104_729)), "altitude": .number(JSONNumber(point % 90))]
        }
        return ["_id": .string("route-\(index)"), "entityType": "route", "locations": .array(track)]
    }

    @Test func aKindOfLargeBodiesIsCompressedAloneAndNeverComesDueForADictionary() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        // 1,200 routes of about 21 KB of JSON each, in batches too small for the batch path's training.
        for batch in 0..<12 {
            _ = try await store.bulkDocs((0..<100).map { Self.route(batch * 100 + $0, points: 250) })
        }
        #expect(store.bodyCodec.kindsDueForTraining.isEmpty)
        #expect(store.bodyCodec.dictionary(forKind: "route") == nil)
        let stats = try await store.storageStats()
        #expect(stats.liveBodyJSONBytes > stats.liveBodyBytes * 2, "bodies \(stats.liveBodyJSONBytes) → \(stats.liveBodyBytes)")
        var read = try await store.document(id: "route-1111")
        #expect(read.removeValue(forKey: "_rev") != nil)
        #expect(JSONValue.object(read) == Self.route(1_111, points: 250))
        // Compaction, which trains every kind of 200 documents or more that has no dictionary, finds no
        // sample among them either, and leaves their frames as they are.
        #expect(try await store.compact(progress: nil).bodiesRecompressed == 0)
        #expect(store.bodyCodec.dictionary(forKind: "route") == nil)
    }

    @Test func aKindsDictionaryIsTrainedFromItsSmallBodiesOnly() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        // Every fourth document of the kind is a long route; the thousandth short one brings the training.
        var short = 0
        for batch in 0..<14 {
            let documents = (0..<100).map { offset -> JSONValue in
                let index = batch * 100 + offset
                guard index % 4 != 0 else { return Self.route(index, points: 250) }
                short += 1
                var body = CompressedBodyTests.reading(index).objectValue ?? [:]
                body["entityType"] = "route"
                body["_id"] = .string("route-\(index)")
                return .object(body)
            }
            _ = try await store.bulkDocs(documents)
        }
        #expect(short == 1_050)
        let dictionary = try #require(store.bodyCodec.dictionary(forKind: "route"))
        let sampled = try await store.read(.storeUnreadable) { db in
            try Int.fetchOne(db, sql: "SELECT sample_count FROM body_dictionaries WHERE id = ?", arguments: [Int(dictionary.id)])
        }
        // Trained after the batch that brought the thousandth short body, from the 1,050 short bodies then
        // written and none of the 350 routes.
        #expect(sampled == 1_050)
    }
}
