import CloudantCore
@testable import CloudantStore
import Foundation
import Testing

/// A ``BodyReader`` decodes frame after frame into one buffer: each read gives that frame's own bytes,
/// whatever came before it.
@Suite("Body reader")
struct BodyReaderTests {
    /// A dictionary with `id` trained from bodies shaped like `body(_:)`.
    private static func dictionary(id: UInt32, _ body: (Int) -> String) throws -> BodyDictionary {
        let samples = (0..<400).map { Array(body($0).utf8) }
        let trained = try #require(Zstd.trainDictionary(samples: TrainingSamples(samples), capacity: 8_192))
        return try #require(BodyDictionary(id: id, kind: "k\(id)", bytes: BodyDictionary.renumbered(trained, id: id), level: BodyCodec.level))
    }

    private static func note(_ index: Int) -> String {
        #"{"kind":"note","text":"note number \#(index) about the morning walk","tags":["walk","morning"],"n":\#(index)}"#
    }

    private static func reading(_ index: Int) -> String {
        #"{"kind":"reading","value":\#(index * 7),"unit":"count/min","device":{"name":"Apple Watch","model":"Watch6,2"}}"#
    }

    private static func frame(_ json: String, _ dictionary: BodyDictionary?) throws -> [UInt8] {
        try #require(BodyCodec.compress(Array(json.utf8), with: dictionary))
    }

    /// A reader whose codec holds the notes dictionary (id 1), and that dictionary.
    private static func notesReader() throws -> (BodyReader, BodyDictionary) {
        let codec = BodyCodec(compresses: true)
        let notes = try dictionary(id: 1, note)
        codec.adopt(notes)
        return (BodyReader(codec: codec), notes)
    }

    private static func decoded(_ reader: BodyReader, _ frame: [UInt8]) throws -> String {
        try frame.withUnsafeBytes { stored in try reader.withJSON(stored, connection: nil) { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func framesOfTwoDictionariesAndNoneInTurnEachDecodeToTheirOwnBytes() throws {
        let codec = BodyCodec(compresses: true)
        let notes = try Self.dictionary(id: 1, Self.note)
        let readings = try Self.dictionary(id: 2, Self.reading)
        codec.adopt(notes)
        codec.adopt(readings)
        let reader = BodyReader(codec: codec)
        let large = #"{"text":""# + String(repeating: "a long body without a dictionary ", count: 200) + #""}"#
        var expected: [String] = []
        var frames: [[UInt8]] = []
        for index in 0..<30 {
            // Longer and shorter bodies in turn, so the buffer is reused for sizes both ways.
            let (json, dictionary): (String, BodyDictionary?) =
                switch index % 3 {
                case 0: (Self.note(index * 1_000), notes)
                case 1: (Self.reading(index), readings)
                default: (large, nil)
                }
            expected.append(json)
            frames.append(try Self.frame(json, dictionary))
        }
        for (frame, json) in zip(frames, expected) { #expect(try Self.decoded(reader, frame) == json) }
        // The same frame twice in a row (a query reading two members of one body) reads the same bytes.
        #expect(try Self.decoded(reader, frames[4]) == expected[4])
        #expect(try Self.decoded(reader, frames[4]) == expected[4])
    }

    @Test func aDecodeInsideAnotherGetsItsOwnBytesAndLeavesTheOuterOnesAlone() throws {
        let (reader, notes) = try Self.notesReader()
        let outer = try Self.frame(Self.note(1), notes)
        let inner = try Self.frame(Self.note(22_222), notes)
        let (outerText, innerText) = try outer.withUnsafeBytes { stored in
            try reader.withJSON(stored, connection: nil) { outerBytes in
                let innerText = try Self.decoded(reader, inner)
                return (String(decoding: outerBytes, as: UTF8.self), innerText)
            }
        }
        #expect(outerText == Self.note(1) && innerText == Self.note(22_222))
    }

    @Test func aDamagedFrameIsStoreUnreadableAndTheNextGoodOneStillDecodes() throws {
        let (reader, notes) = try Self.notesReader()
        let good = try Self.frame(Self.note(5), notes)
        var damaged = good
        damaged[damaged.count - 3] ^= 0xFF
        #expect(try Self.decoded(reader, good) == Self.note(5))
        let error = #expect(throws: CloudantError.self) { try Self.decoded(reader, damaged) }
        #expect(error?.code == .storeUnreadable)
        #expect(try Self.decoded(reader, good) == Self.note(5))
        // A frame naming a dictionary the codec does not hold (and no connection to read it from).
        let unknown = try Self.frame(Self.reading(3), Self.dictionary(id: 9, Self.reading))
        #expect(throws: CloudantError.self) { try Self.decoded(reader, unknown) }
    }
}
