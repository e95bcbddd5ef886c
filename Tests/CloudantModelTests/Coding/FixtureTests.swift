import CloudantModel
import Foundation
import Testing

/// Documents written by hand from CDTIncrementalStore's JSON schemas (see Fixtures/README.md).
@Suite("CDTIS fixture documents")
struct FixtureTests {
    @Test func theSchemaExampleDecodesEveryType() throws {
        let sample = try Sample(jsonObject: try Fixtures.document("valid/sample-schema.json"))
        #expect(sample.id == "CDTIS-Sample-0001")
        #expect(sample.objectVersion == 3)
        #expect(sample.objectIdentifier == "x-coredata://8F0C1D3A-0000-4000-8000-000000000001/Sample/pCDTIS-Sample-0001")
        #expect(sample.text == "Grüße, 世界")
        #expect(sample.flag == true)
        #expect(sample.when == Date(timeIntervalSince1970: 1_423_785_600.5))
        #expect(sample.small == .min && sample.medium == .max && sample.large == .min)
        #expect(sample.real == 3.14159)
        #expect(sample.single == 1.5)
        #expect(sample.amount == Decimal(string: "12.5"))
        #expect(sample.blob == Data("hello".utf8))
        #expect(sample.image == TransformableValue(data: Data([0x89, 0x50, 0x4E, 0x47]), mimeType: "image/png", transformer: "ImageToPNG"))
        #expect(sample.objectRef == "x-coredata://8F0C1D3A-0000-4000-8000-000000000001/Recipe/p7")
        #expect(sample.required == "given")
    }

    @Test func whatTheBridgesOwnCodeWroteReadsToo() throws {
        let sample = try Sample(jsonObject: try Fixtures.document("valid/sample-bridge-code.json"))
        #expect(sample.flag == true)  // a JSON boolean
        #expect(sample.real == -2.5)  // a decimal string with a signed image
        #expect(sample.single == -0.75)  // a signed 32-bit image
        #expect(sample.amount == 7)  // text without an image
        #expect(sample.required == "none")  // absent: the model's default
    }

    @Test func nonFiniteValuesComeFromTheirImagesOrMarkers() throws {
        let images = try Sample(jsonObject: try Fixtures.document("valid/sample-nonfinite.json"))
        #expect(images.real == .infinity)
        #expect(images.single == -.infinity)
        #expect(images.amount?.isNaN == true)
        let markers = try Sample(jsonObject: try Fixtures.document("valid/sample-markers-only.json"))
        #expect(markers.real?.isNaN == true)
        #expect(markers.single?.isNaN == true)
        #expect(markers.large == 9_007_199_254_740_993)
        let tiny = try Sample(jsonObject: try Fixtures.document("valid/sample-tiny.json"))
        #expect(tiny.real?.bitPattern == (-0.0 as Double).bitPattern)
        #expect(tiny.single == .leastNonzeroMagnitude)
        #expect(tiny.text == "")
    }

    @Test func everyValidFixtureChecksClean() throws {
        let check = DocumentCheck(version: SamplesModel.objectModel.current)
        for name in try Fixtures.names(in: "valid") where name.hasPrefix("sample") {
            #expect(check.violations(of: try Fixtures.document("valid/" + name)).isEmpty, "\(name)")
        }
    }

    static let breaches: [(file: String, property: String, problem: SchemaViolation.Problem)] = [
        ("small-out-of-range", "small", .outOfRange),
        ("text-not-string", "text", .wrongType(expected: "a string")),
        ("image-not-integer", "real", .malformedMetadata("CDTISMeta_real.ieee754_double")),
        ("meta-not-object", "single", .malformedMetadata("CDTISMeta_single")),
        ("blob-not-base64", "blob", .malformedBase64),
        ("decimal-image-short", "amount", .malformedDecimal),
        ("flag-is-text", "flag", .wrongType(expected: "a number")),
        ("when-is-text", "when", .wrongType(expected: "a number")),
        ("medium-fraction", "medium", .outOfRange),
        ("object-version-text", "CDTISObjectVersion", .malformedObjectVersion),
        ("no-entity-name", "CDTISEntityName", .missingEntityName),
        ("other-entity", "CDTISEntityName", .otherEntity("Recipe")),
    ]

    @Test(arguments: breaches.map(\.file))
    func aBreachIsATypedErrorNamingThePropertyAndTheDocument(_ file: String) throws {
        let expected = try #require(Self.breaches.first { $0.file == file })
        let document = try Fixtures.document("invalid/\(file).json")
        let error = try #require(throws: CloudantError.self) { try Sample(jsonObject: document) }
        #expect(error.code == .schemaViolation)
        #expect(error.context.documentID == document["_id"]?.stringValue)
        #expect(error.context.field == expected.property)
        #expect(error.schemaViolation?.problem == expected.problem)
        #expect(error.description.contains(expected.property))
    }

    @Test func everyBreachIsListedByTheCheckToo() throws {
        let check = DocumentCheck(version: SamplesModel.objectModel.current)
        for breach in Self.breaches where breach.file != "other-entity" {
            let violations = check.violations(of: try Fixtures.document("invalid/\(breach.file).json"))
            #expect(violations.map(\.property) == [breach.property], "\(breach.file)")
        }
    }
}
