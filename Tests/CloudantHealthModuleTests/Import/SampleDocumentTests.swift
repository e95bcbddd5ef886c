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

    @Test func contentIDsAreTimeOrderedVersion7UUIDsCarryingTheFingerprintsHash() throws {
        let export = try GeneratedExport.make(
            records: 1500, seed: 10, extra: ["--route-points", "3", "--quirk", "vt-char", "--quirk", "duplicate-route"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let stream = try HealthExportStream(url: export.exportFolder.appendingPathComponent("export.xml"))
        var compared = 0
        var previous: (type: String, start: Date, id: String)?
        while let (element, _) = try stream.next() {
            guard let startText = element.attribute("startDate"), let start = LocalTimestamp(parsing: startText)?.date
            else { continue }
            let id = ExportAttributes(element: element).contentUUID(startingAt: start)
            let hash = Self.fingerprintUUID(element)
            // 48 bits of milliseconds, the version, 12 bits of hash, the variant, 62 bits of hash.
            let milliseconds = UInt64(start.timeIntervalSince1970 * 1000)
            #expect(UInt64(id.prefix(8) + id.dropFirst(9).prefix(4), radix: 16) == milliseconds)
            #expect(id.dropFirst(14).first == "7")
            #expect(id.dropFirst(15).prefix(3) == hash.dropFirst(15).prefix(3))
            #expect("89AB".contains(id.dropFirst(19).first ?? "?"))
            #expect(id.dropFirst(20) == hash.dropFirst(20))
            // Within one type the export lists records by time, so ids come in order.
            let type = element.attribute("type") ?? element.name
            if let previous, previous.type == type, previous.start < start { #expect(previous.id < id) }
            previous = (type, start, id)
            compared += 1
        }
        #expect(compared > 1500)
    }

    /// The fingerprint's hash as an uppercase uuid: the revision hash of the fingerprint built as `JSONValue`s.
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
