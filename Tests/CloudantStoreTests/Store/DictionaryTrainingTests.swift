import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// The trainer's smaller frequency table (``Zstd/trainerFrequencyLog``) holds far less memory than zstd's
/// default and must not cost compression: its dictionaries compress a kind's bodies as well as the default's.
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
        let trained = try #require(Zstd.trainDictionary(samples: samples, capacity: 16 << 10, level: BodyCodec.level, frequencyLog: log))
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
}
