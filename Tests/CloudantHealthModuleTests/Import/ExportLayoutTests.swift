import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("Apple Health exports in any layout")
struct ExportLayoutTests {
    /// What an import stored, by document id and body: two layouts of one export must store the same.
    private func stored(_ store: DocumentStore) async throws -> [String: JSONObject] {
        var documents: [String: JSONObject] = [:]
        for family in HealthSampleType.allCases {
            for sample in try await HealthStore(store: store).collection(healthKitSampleType: family).getSamples() {
                guard case .object(var body) = try JSONValue(encoding: sample.sample) else { continue }
                body.removeValue(forKey: "revId")
                documents[sample.id] = body
            }
        }
        return documents
    }

    @Test func aBareExportXMLItsZipItsFolderAndTheirGzipsImportTheSame() async throws {
        let copy = try DriftFixture.copy("ios13")
        defer { try? FileManager.default.removeItem(at: copy) }
        let folder = copy.appendingPathComponent("apple_health_export")
        let zip = copy.appendingPathComponent("export.zip")
        try await FixtureTool.zip(copy, into: zip)
        let gzipped = folder.appendingPathComponent("export.xml.gz")
        try await FixtureTool.gzip(folder.appendingPathComponent("export.xml"), into: gzipped)
        let zipGzipped = copy.appendingPathComponent("export.zip.gz")
        try await FixtureTool.gzip(zip, into: zipGzipped)

        var results: [(name: String, report: HealthImportReport, documents: [String: JSONObject])] = []
        for (name, location) in [
            ("folder", copy), ("zip", zip), ("bare export.xml", folder.appendingPathComponent("export.xml")),
            ("export.xml.gz", gzipped), ("export.zip.gz", zipGzipped),
        ] {
            let harness = try HealthTestStore(name: "layout")
            defer { harness.remove() }
            let report = try await AppleHealthImporter(store: harness.store).importExport(at: location)
            results.append((name, report, try await stored(harness.store)))
        }
        let reference = results[0]
        #expect(reference.documents.count == 14)
        for result in results.dropFirst() {
            #expect(result.documents == reference.documents, "\(result.name)")
            #expect(result.report.samplesByType == reference.report.samplesByType, "\(result.name)")
            #expect(result.report.routePoints == 4 && result.report.cdaDocuments == 1, "\(result.name): side files found")
            #expect(result.report.skippedCount == reference.report.skippedCount, "\(result.name)")
        }
    }

    @Test func standardInputTakesXMLGzipOrAZip() async throws {
        let copy = try DriftFixture.copy("ios18")
        defer { try? FileManager.default.removeItem(at: copy) }
        let xml = copy.appendingPathComponent("apple_health_export/export.xml")
        let zip = copy.appendingPathComponent("export.zip")
        try await FixtureTool.zip(copy, into: zip)
        let gzipped = copy.appendingPathComponent("export.xml.gz")
        try await FixtureTool.gzip(xml, into: gzipped)
        for (file, hasFolder) in [(xml, false), (gzipped, false), (zip, true)] {
            let harness = try HealthTestStore(name: "stdin")
            defer { harness.remove() }
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let report = try await AppleHealthImporter(store: harness.store).importExport(reading: handle)
            #expect(report.recordsRead == 3 && report.workoutMemberRecords == 1, "\(file.lastPathComponent)")
            #expect(report.workoutsByType == ["HKWorkoutActivityTypeCycling": 1])
            if hasFolder {
                #expect(report.routePoints == 3 && report.warnings.isEmpty)
            } else {
                // Without a folder the route's file cannot be read: the route is stored without points, and said so.
                #expect(report.routePoints == 0)
                #expect(report.warnings.first?.reason.contains("without its folder") == true)
                #expect(report.warnings.first?.file?.hasPrefix("standard input") == true)
            }
        }
    }

    @Test(arguments: [
        ("note.xml", "<?xml version=\"1.0\"?>\n<note>\n<to>Tove</to></note>", "its root element is <note>", 2),
        ("export.csv", "type,value\nsteps,12\n", "it is not XML", 1),
        ("empty.xml", "", "it is empty", 1),
        ("cda.xml", "<ClinicalDocument xmlns=\"urn:hl7-org:v3\"><title>T</title></ClinicalDocument>", "<ClinicalDocument>", 1),
    ])
    func aFileThatIsNotAnExportIsRefusedNamingItAndItsLineAndNothingIsWritten(
        _ name: String, _ text: String, _ why: String, _ line: Int
    ) async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("not-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        let before = try await harness.store.info().documentCount
        let error = await #expect(throws: CloudantError.self) {
            try await AppleHealthImporter(store: harness.store).importExport(at: file)
        }
        #expect(error?.code == .invalidHealthExport)
        #expect(error?.context.field == file.path)
        #expect(error?.message.contains("\(file.path) is not an Apple Health export") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(why) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("(line \(line))") == true, "\(error?.message ?? "")")
        #expect(try await harness.store.info().documentCount == before)
    }

    @Test func aZipWithoutAnExportAndAMissingPathAreTypedErrors() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not health".utf8).write(to: folder.appendingPathComponent("photos/readme.txt"))
        let zip = folder.appendingPathComponent("photos.zip")
        try await FixtureTool.zip(folder.appendingPathComponent("photos"), into: zip)
        let refused = await #expect(throws: CloudantError.self) {
            try await AppleHealthImporter(store: harness.store).importExport(at: zip)
        }
        #expect(refused?.code == .invalidHealthExport && refused?.message.contains("holds no export.xml") == true)
        let missing = await #expect(throws: CloudantError.self) {
            try await AppleHealthImporter(store: harness.store).importExport(at: folder.appendingPathComponent("nope.zip"))
        }
        #expect(missing?.code == .notFound)
    }

    @Test func aZipMemberThatFailsItsChecksumIsRefused() async throws {
        // The main XML is inflated as it is parsed; the other members are unpacked before.
        for (member, why) in [
            ("apple_health_export/export.xml", "checksum does not match"),
            ("apple_health_export/workout-routes/route_2019-11-05_7.12am.gpx", "could not be extracted"),
        ] {
            let copy = try DriftFixture.copy("ios13")
            defer { try? FileManager.default.removeItem(at: copy) }
            let zip = copy.appendingPathComponent("export.zip")
            try await FixtureTool.zip(copy, into: zip)
            try FixtureTool.damageChecksum(of: member, in: zip)
            let harness = try HealthTestStore()
            defer { harness.remove() }
            let refused = await #expect(throws: CloudantError.self, "\(member)") {
                try await AppleHealthImporter(store: harness.store).importExport(at: zip)
            }
            #expect(refused?.code == .invalidHealthExport && refused?.context.field == member, "\(String(describing: refused))")
            #expect(refused?.message.contains(why) == true, "\(member): \(refused?.message ?? "")")
        }
    }

    /// Imports the ios12 fixture's `export.xml` gzipped and then changed by `damage`.
    private func importDamagedGzip(_ damage: (inout [UInt8]) -> Void) async throws -> (report: HealthImportReport, file: String) {
        let copy = try DriftFixture.copy("ios12")
        defer { try? FileManager.default.removeItem(at: copy) }
        let gzipped = copy.appendingPathComponent("export.xml.gz")
        try await FixtureTool.gzip(copy.appendingPathComponent("apple_health_export/export.xml"), into: gzipped)
        var bytes = [UInt8](try Data(contentsOf: gzipped))
        damage(&bytes)
        try Data(bytes).write(to: gzipped)
        let harness = try HealthTestStore()
        defer { harness.remove() }
        return (try await AppleHealthImporter(store: harness.store).importExport(at: gzipped), gzipped.path)
    }

    /// A damaged trailer arrives after the document's last byte: the records parsed, yet the import is not
    /// complete, since the bytes are not the ones that were compressed.
    @Test func aGzipThatFailsItsChecksumStopsEarlyNamingIt() async throws {
        // The trailer: CRC-32, then the length, little-endian.
        let (report, file) = try await importDamagedGzip { $0[$0.count - 8] ^= 0x01 }
        let stop = try #require(report.stoppedEarly)
        #expect(stop.file == file && stop.reason.contains("fails its checksum"), "\(stop.reason)")
        #expect(report.documentsNew == 9)
    }

    @Test func aCutShortGzipStopsEarlyWithWhatCameBeforeImported() async throws {
        let (report, file) = try await importDamagedGzip { $0.removeLast($0.count / 4) }
        let stop = try #require(report.stoppedEarly)
        #expect(stop.file == file && stop.reason.contains("gzip"))
        #expect(report.recordsRead > 0 && report.documentsNew > 0)
    }
}
