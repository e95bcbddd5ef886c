import CloudantCore
@testable import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Import documents built by hand")
struct SampleDocumentTests {
    @Test func everyRecordOfAnExportGetsTheBodyAndRevisionTheEncoderWouldGive() async throws {
        let export = try await GeneratedHealthExport.make(records: 2500, seed: 8, extra: ["--route-points", "40", "--quirk", "vt-char"])
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

    @Test func recordKeysAreTimeOrderedVersion7UUIDsThatIgnoreHowAnExportSpellsTheSameRecord() async throws {
        let export = try await GeneratedHealthExport.make(records: 1500, seed: 10, extra: ["--route-points", "3", "--quirk", "vt-char"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let stream = try HealthExportStream(url: export.exportFolder.appendingPathComponent("export.xml"))
        var compared = 0
        var previous: (type: String, start: Date, id: String)?
        while let (element, _) = try stream.next() {
            guard element.name == "Record", let decoded = try? ExportRecordDecoder.record(element) else { continue }
            let id = decoded.sample.id
            let start = decoded.sample.startDate
            // 48 bits of milliseconds, the version, the variant.
            let milliseconds = UInt64(start.timeIntervalSince1970 * 1000)
            #expect(UInt64(id.prefix(8) + id.dropFirst(9).prefix(4), radix: 16) == milliseconds)
            #expect(id.dropFirst(14).first == "7")
            #expect("89AB".contains(id.dropFirst(19).first ?? "?"))
            // Within one type the export lists records by time, so ids come in order.
            let type = decoded.sample.typeIdentifier
            if let previous, previous.type == type, previous.start < start { #expect(previous.id < id) }
            previous = (type, start, id)
            compared += 1
        }
        #expect(compared == export.expected["records_total"]?.numberValue?.int64Value.map(Int.init))
    }

    @Test func aRecordKeepsItsKeyWhenALaterExportWritesItDifferently() throws {
        func key(_ record: String) throws -> String {
            let xml = Data(("<HealthData>" + record + "</HealthData>").utf8)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString).xml")
            try xml.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let stream = try HealthExportStream(url: file)
            let (element, _) = try #require(try stream.next())
            return try ExportRecordDecoder.record(element).sample.id
        }
        let original = try key(
            #"<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Jane’s Apple Watch" sourceVersion="5.1" "#
                + #"device="&lt;&lt;HKDevice: 0x282a45810&gt;, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch3,4, software:5.1&gt;" "#
                + #"unit="count/min" creationDate="2019-02-10 02:47:35 -0800" startDate="2019-02-10 02:28:55 -0800" "#
                + #"endDate="2019-02-10 02:28:55 -0800" value="72"><MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/></Record>"#)
        // A newer export: another HKDevice pointer and spelling, the phone renamed, the dates in another
        // offset and in iOS 8's spelling, attributes in another order, the value written as a decimal.
        let later = try key(
            #"<Record value="72.0" type="HKQuantityTypeIdentifierHeartRate" sourceName="Jane’s Apple Watch Ultra" "#
                + #"device="&lt;&lt;HKDevice: 0x74703ff240&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch3,4, software:5.1&gt;" "#
                + #"unit="count/min" startDate="20190210112855+0100" endDate="2019-02-10 10:28:55 +0000" "#
                + #"creationDate="2019-02-10 10:47:35 +0000"><MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/></Record>"#)
        #expect(original == later)
        // Another value, creation time or measuring hardware is another record.
        let other = try key(
            #"<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Jane’s iPhone" unit="count/min" "#
                + #"device="&lt;&lt;HKDevice: 0x1&gt;, name:iPhone, manufacturer:Apple, model:iPhone, hardware:iPhone10,4, software:12.1&gt;" "#
                + #"creationDate="2019-02-10 02:47:35 -0800" startDate="2019-02-10 02:28:55 -0800" "#
                + #"endDate="2019-02-10 02:28:55 -0800" value="72"/>"#)
        #expect(other != original)
        // A sync identifier names the record whatever else changes.
        let synced = { (value: String, version: String) in
            try key(#"<Record type="HKQuantityTypeIdentifierDietaryWater" sourceName="WaterMinder" unit="mL" "#
                + #"startDate="2019-11-05 12:00:00 +0000" endDate="2019-11-05 12:00:00 +0000" value="\#(value)">"#
                + #"<MetadataEntry key="HKMetadataKeySyncIdentifier" value="WM-1"/>"#
                + #"<MetadataEntry key="HKMetadataKeySyncVersion" value="\#(version)"/></Record>"#)
        }
        #expect(try synced("500", "1") == synced("750", "2"))
    }
}
