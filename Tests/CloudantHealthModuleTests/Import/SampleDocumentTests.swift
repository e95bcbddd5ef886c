import CloudantCore
@testable import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("Import documents built by hand")
struct SampleDocumentTests {
    @Test func everyRecordOfAnExportGetsTheBodyAndRevisionTheEncoderWouldGive() throws {
        let export = try GeneratedExport.make(records: 2500, seed: 8, extra: ["--route-points", "40", "--quirk", "vt-char"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let stream = try HealthExportStream(url: export.exportFolder.appendingPathComponent("export.xml"))
        var compared = 0
        var routes = 0
        while let (element, _) = try stream.next() {
            if element.name == "Workout", let workout = try? ExportWorkoutDecoder.workout(element, exportFolder: export.exportFolder) {
                for route in workout.routes {
                    #expect(try SampleDocument.make(.workoutRoute(route)).body == SampleDocument.encoded(.workoutRoute(route)))
                    routes += 1
                }
            }
            guard element.name == "Record", let decoded = try? ExportRecordDecoder.record(element) else { continue }
            let fast = try SampleDocument.make(decoded.sample)
            let encoded = try SampleDocument.encoded(decoded.sample)
            #expect(fast.body == encoded, "\(decoded.sample.typeIdentifier)")
            #expect(fast.rev == (try NewDocument(id: decoded.sample.id, body: encoded)).rev)
            compared += 1
        }
        #expect(compared == export.expected["records_total"]?.numberValue?.int64Value.map(Int.init))
        #expect(routes > 0)
    }

    @Test func contentIDsAreTheRevisionHashOfTheElementsFingerprint() throws {
        let export = try GeneratedExport.make(
            records: 1500, seed: 10, extra: ["--route-points", "3", "--quirk", "vt-char", "--quirk", "duplicate-route"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let stream = try HealthExportStream(url: export.exportFolder.appendingPathComponent("export.xml"))
        var compared = 0
        while let (element, _) = try stream.next() {
            #expect(ExportAttributes(element: element).contentUUID == Self.fingerprintUUID(element))
            compared += 1
        }
        #expect(compared > 1500)
    }

    /// How ids were first derived: the revision hash of the fingerprint built as `JSONValue`s.
    private static func fingerprintUUID(_ element: XMLElementView) -> String {
        func fingerprint(_ element: XMLElementView) -> JSONValue {
            var attributes: [JSONValue] = []
            var cursor = element.node.pointee.properties
            while let attribute = cursor {
                let name = attribute.pointee.name.map { String(cString: $0) } ?? ""
                attributes.append(.array([.string(name), .string(element.attribute(name) ?? "")]))
                cursor = attribute.pointee.next
            }
            return .array([.string(element.name), .array(attributes), .array(element.children.map(fingerprint))])
        }
        let digest = RevisionHash.mint(
            body: ["export": fingerprint(element)], parentRevision: nil, deleted: false, attachments: [])
        let hex = Array(digest.uppercased())
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }
}
