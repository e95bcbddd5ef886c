import CloudantModel
import CloudantTestSupport
import Foundation
import Testing

/// Values go into a document, through JSON text (what the store keeps and replication carries), and back,
/// bit for bit.
@Suite("CDTIS encoding round trips")
struct RoundTripTests {
    static let doubles: [Double] = [
        0, -0.0, 1, -1, .pi, -.pi, 0.1, 1e-300, 1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNormalMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, Double.leastNormalMagnitude.nextDown,
        .infinity, -.infinity, .nan, -.nan, .signalingNaN,
        Double(bitPattern: 0x7FF8_0000_0000_0001), Double(bitPattern: 0xFFF0_0000_DEAD_BEEF), Double(bitPattern: 0x7FF0_0000_0000_0001),
        Double(1 << 53).nextUp, 4_503_599_627_370_497.5, 123_456_789.123_456_789,
    ]
    static let floats: [Float] = [
        0, -0.0, 1.5, -0.75, .pi, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude,
        .leastNonzeroMagnitude, Float.leastNormalMagnitude.nextDown, .infinity, -.infinity, .nan, .signalingNaN,
        Float(bitPattern: 0x7FC0_0001), Float(bitPattern: 0xFF80_1234), Float(1 << 24).nextUp,
    ]
    static let decimals: [Decimal] = [
        0, 1, -1, Decimal(string: "12.50")!, Decimal(string: "-0.000000000000000000000000000000000001")!,
        .greatestFiniteMagnitude, .leastFiniteMagnitude, .leastNonzeroMagnitude,
        Decimal(string: "99999999999999999999999999999999999999")!, Decimal(string: "3.1415926535897932384626433832795028841")!,
        .nan,
    ]

    /// A sample through the real encoder, JSON text and the decoder.
    func throughJSON(_ sample: Sample) throws -> Sample {
        var body = try sample.jsonObject()
        body["_id"] = .string(sample.id)
        let text = JSONValue.object(body).jsonBytes()
        guard case .object(let parsed) = try JSONValue(parsing: text) else { throw CloudantError(.invalidInput, "not an object") }
        return try Sample(jsonObject: parsed)
    }

    @Test(arguments: doubles)
    func aDoubleComesBackBitForBit(_ value: Double) throws {
        let back = try throughJSON(Sample(id: "d", real: value))
        #expect(back.real?.bitPattern == value.bitPattern, "\(value) came back as \(String(describing: back.real))")
    }

    @Test(arguments: floats)
    func aFloatComesBackBitForBit(_ value: Float) throws {
        let back = try throughJSON(Sample(id: "f", single: value))
        #expect(back.single?.bitPattern == value.bitPattern, "\(value) came back as \(String(describing: back.single))")
    }

    @Test(arguments: decimals)
    func aDecimalComesBackExactly(_ value: Decimal) throws {
        let back = try #require(try throughJSON(Sample(id: "m", amount: value)).amount)
        if value.isNaN {
            #expect(back.isNaN)
        } else {
            #expect(back == value)
            #expect(back.description == value.description)
        }
    }

    @Test func integersKeepTheirLimits() throws {
        for (small, medium, large) in [(Int16.min, Int32.min, Int64.min), (Int16.max, Int32.max, Int64.max), (0, 0, 0), (-1, -1, -1)] {
            let back = try throughJSON(Sample(id: "i", small: small, medium: medium, large: large))
            #expect(back.small == small && back.medium == medium && back.large == large)
        }
    }

    @Test func stringsDatesBinaryAndTransformablesRoundTrip() throws {
        let bytes = Data((0...255).map(UInt8.init))
        let sample = Sample(
            id: "s", text: "tab\t\"quote\" \u{0} émoji 🧪", flag: false, when: Date(timeIntervalSince1970: -1_234_567_890.5),
            blob: bytes, image: TransformableValue(data: Data([0x89, 0x50]), mimeType: "image/png", transformer: "ImageToPNG"),
            objectRef: "x-coredata://u/Recipe/p1", required: "")
        let back = try throughJSON(sample)
        #expect(back == sample)
        #expect(back.when?.timeIntervalSince1970 == -1_234_567_890.5)
    }

    @Test func theDocumentHasTheSchemasMembersAndNoOthers() throws {
        let body = try Sample(id: "x", real: -.infinity, single: .nan, amount: .nan, blob: Data([1])).jsonObject()
        #expect(body["CDTISEntityName"] == "Sample")
        #expect(body["CDTISObjectVersion"] == "1")
        #expect(body["real"] == .number(.double(-.greatestFiniteMagnitude)))
        #expect(body["CDTISMeta_real"] == ["ieee754_double": .number(.bigInteger("18442240474082181120")), "nonFinite": "-infinity"])
        #expect(body["single"] == 0)
        #expect(body["CDTISMeta_single"] == ["ieee754_single": .number(.integer(Int64(Float.nan.bitPattern))), "nonFinite": "nan"])
        #expect(body["amount"] == "0" && body["CDTISMeta_amount"]?["nonFinite"] == "nan")
        #expect(body["blob"] == "AQ==" && body["CDTISMeta_blob"] == ["mime-type": "application/octet-stream"])
        #expect(body["flag"] == nil)  // nil attributes are left out, as the bridge skipped them
        #expect(body.keys.allSatisfy { $0.hasPrefix("CDTIS") || Sample.entity.property(named: $0) != nil })
    }

    @Test func aFullSampleSurvivesTheRealStoreAndComesBackEqual() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let models = try await folder.models("samples", model: SamplesModel.objectModel)
        var samples: [Sample] = []
        for (index, value) in Self.doubles.enumerated() {
            samples.append(
                Sample(
                    id: "sample-\(index)", flag: index % 2 == 0, small: Int16(truncatingIfNeeded: index * 1000),
                    large: index % 2 == 0 ? .max : .min, real: value,
                    single: Self.floats[index % Self.floats.count], amount: Self.decimals[index % Self.decimals.count]))
        }
        try await models.save(samples)
        let back = try await models.fetch(Sample.self, ids: samples.map(\.id))
        #expect(back.count == samples.count)
        for (stored, original) in zip(back, samples) {
            #expect(stored.real?.bitPattern == original.real?.bitPattern)
            #expect(stored.single?.bitPattern == original.single?.bitPattern)
            #expect(stored.large == original.large)
            #expect(stored.amount?.isNaN == true ? original.amount?.isNaN == true : stored.amount == original.amount)
        }
    }
}
