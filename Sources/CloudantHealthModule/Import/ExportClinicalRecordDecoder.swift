internal import CloudantCore
internal import Foundation

/// Turns a `<ClinicalRecord>` into a clinical record sample, reading its FHIR resource from
/// `clinical-records/*.json` beside `export.xml`:
/// `<ClinicalRecord type="Observation" identifier="…" sourceName="Riverside Health" sourceURL="https://…"
/// fhirVersion="4.0.1" receivedDate="2024-03-05 09:30:00 +0100" resourceFilePath="/clinical-records/….json"/>`.
///
/// A file that is missing, unreadable, not JSON, not a FHIR resource, of another resource type than the
/// element says, or whose path leaves the export folder skips the record, naming the file in the report.
enum ExportClinicalRecordDecoder {
    /// FHIR resources are a few kilobytes; anything this large is not one.
    static let maximumFileBytes = 32 << 20

    /// Resource types a file name may start with (`Observation-<uuid>.json`); a name starting with another
    /// word says nothing about its content.
    private static let resourceTypeNames: Set<String> = [
        "AllergyIntolerance", "Condition", "Coverage", "DiagnosticReport", "DocumentReference", "Immunization",
        "MedicationDispense", "MedicationOrder", "MedicationRequest", "MedicationStatement", "Observation",
        "Patient", "Procedure",
    ]

    /// The sample, and the export's `type` it is counted under.
    static func record(_ element: XMLElementView, exportFolder: URL?) throws(ImportSkip)
        -> (sample: ClinicalRecordSample, exportType: String)
    {
        let attributes = ExportAttributes(element: element)
        guard let type = attributes.string("type"), !type.isEmpty else {
            throw ImportSkip("a <ClinicalRecord> without a type")
        }
        guard let path = attributes.string("resourceFilePath"), !path.isEmpty else {
            throw ImportSkip("a <ClinicalRecord> without a resourceFilePath")
        }
        var received: LocalTimestamp?
        if let text = attributes.string("receivedDate") {
            guard let time = LocalTimestamp(parsing: text) else { throw ImportSkip("unreadable receivedDate '\(text)'") }
            received = time
        }
        let data = try Self.read(path, in: exportFolder)
        let resource: JSONValue
        do { resource = try JSONValue(parsing: data) } catch {
            throw ImportSkip("a FHIR resource file that is not valid JSON", subject: path)
        }
        guard case .object = resource, let resourceType = resource["resourceType"]?.stringValue,
            !resourceType.isEmpty
        else { throw ImportSkip("a FHIR resource file without a resourceType", subject: path) }
        if expectedResourceTypes(exportType: type, path: path).contains(where: { $0 != resourceType }) {
            throw ImportSkip(
                "a FHIR resource whose resourceType disagrees with its <ClinicalRecord> or file name", subject: path)
        }
        let clinical = FHIRFields.clinicalDate(of: resource)
        guard let start = clinical?.start.date ?? received?.date else {
            throw ImportSkip("a <ClinicalRecord> without a receivedDate or a clinical date")
        }
        let startOffset = clinical.map(\.start.utcOffset) ?? received?.utcOffset
        let end = clinical?.end.flatMap { $0.date >= start ? $0 : nil }
        let fhir = FHIRResource(
            resourceType: resourceType,
            identifier: attributes.string("identifier") ?? resource["id"]?.stringValue ?? "",
            sourceURL: attributes.string("sourceURL").flatMap { URL(string: $0) },
            fhirVersion: attributes.string("fhirVersion") ?? "", data: resource)
        let sample = ClinicalRecordSample(
            uuid: ImportKey.uuid(
                ["ClinicalRecord", type, attributes.string("identifier") ?? "", attributes.string("sourceURL") ?? path],
                startingAt: start),
            typeIdentifier: type.hasPrefix(ClinicalTypeIdentifier.healthKitPrefix) ? type : nil,
            displayName: FHIRFields.displayName(of: resource) ?? resourceType, fhirResource: fhir,
            receivedDate: received?.date ?? start, receivedUTCOffset: received?.utcOffset ?? startOffset,
            startDate: start, endDate: end?.date ?? start, startUTCOffset: startOffset,
            endUTCOffset: end.map { $0.utcOffset } ?? startOffset, source: attributes.source,
            metadata: ["resourceFilePath": .string(path)])
        return (sample, type)
    }

    /// The file at `path` (relative to the export folder, as the export writes it with a leading `/`).
    private static func read(_ path: String, in folder: URL?) throws(ImportSkip) -> Data {
        guard let folder else {
            throw ImportSkip("a FHIR resource file not read: export.xml came without its folder", subject: path)
        }
        guard let file = resolve(path, in: folder) else {
            throw ImportSkip("a resourceFilePath that leaves the export folder (refused)", subject: path)
        }
        guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int else {
            throw ImportSkip("a missing FHIR resource file", subject: path)
        }
        guard size <= maximumFileBytes else { throw ImportSkip("a FHIR resource file over 32 MB", subject: path) }
        do { return try Data(contentsOf: file) } catch {
            throw ImportSkip("an unreadable FHIR resource file", subject: path)
        }
    }

    /// `path` inside `folder`, or `nil` when it would leave it (`..`, or a symbolic link pointing out).
    static func resolve(_ path: String, in folder: URL) -> URL? {
        let relative = String(path.drop(while: { $0 == "/" }))
        let parts = relative.split(separator: "/")
        guard !parts.isEmpty, !parts.contains(".."), !relative.utf8.contains(0) else { return nil }
        let root = folder.standardizedFileURL.resolvingSymlinksInPath()
        let file = root.appendingPathComponent(relative).standardizedFileURL.resolvingSymlinksInPath()
        guard file.path.hasPrefix(root.path + "/") else { return nil }
        return file
    }

    /// The resource types the element and the file name promise: the export's `type` unless it is a
    /// HealthKit clinical type, and the file name's prefix when it is a resource type (`Observation-…`).
    private static func expectedResourceTypes(exportType: String, path: String) -> [String] {
        var expected: [String] = []
        if !exportType.hasPrefix(ClinicalTypeIdentifier.healthKitPrefix) { expected.append(exportType) }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        if let dash = name.firstIndex(of: "-"), resourceTypeNames.contains(String(name[..<dash])) {
            expected.append(String(name[..<dash]))
        }
        return expected
    }
}
