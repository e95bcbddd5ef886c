internal import CloudantCore

/// Reads the CDA header and sections from a parsed element tree.
enum CDAExtractor {
    static let hl7Namespace = "urn:hl7-org:v3"

    /// Element names that only occur inside a CDA document; a root with one of them is a fragment.
    private static let fragmentRoots: Set<String> = [
        "section", "component", "structuredBody", "entry", "observation", "organizer", "recordTarget",
        "patientRole", "patient", "author", "custodian", "substanceAdministration", "act", "title",
    ]

    static func document(from root: XMLElementView) throws(CloudantError) -> CDADocument {
        try checkRoot(root)
        let typeCode = root.child("code").map(code(of:))
        let templates = templateIDs(of: root)
        // Template ids are compared without their `:extension` (the version date of R2.1's templates).
        let roots = templates.map { $0.split(separator: ":").first.map(String.init) ?? $0 }
        let documentType = CDADocumentType(
            templateIDs: templates, code: typeCode,
            templateName: roots.lazy.filter { !CDADocumentType.headerTemplates.contains($0) }
                .compactMap { CDADocumentType.knownTemplates[$0] }.first
                ?? roots.lazy.compactMap { CDADocumentType.knownTemplates[$0] }.first)
        return CDADocument(
            title: root.child("title")?.text,
            patientName: root.child("recordTarget")?.child("patientRole")?.child("patient")?.child("name")
                .flatMap(personName),
            authorName: authorName(root),
            custodianName: root.child("custodian")?.child("assignedCustodian")?.child("representedCustodianOrganization")?
                .child("name")?.text,
            effectiveTime: timestamp(root.child("effectiveTime")?.attribute("value")),
            documentType: documentType,
            sections: sections(of: root))
    }

    private static func checkRoot(_ root: XMLElementView) throws(CloudantError) {
        guard root.name == "ClinicalDocument" else {
            let why =
                fragmentRoots.contains(root.name)
                ? "it is a fragment (a <\(root.name)> element) of a CDA document, not a whole document"
                : "its root element is <\(root.name)>"
            throw CloudantError(
                .notCDADocument, "This XML is not an HL7 CDA document: \(why); a CDA document's root is "
                    + "<ClinicalDocument xmlns=\"urn:hl7-org:v3\">.", context: .init(field: root.name))
        }
        guard root.namespaceURI == hl7Namespace else {
            throw CloudantError(
                .notCDADocument,
                "<ClinicalDocument> is in namespace '\(root.namespaceURI ?? "(none)")', not HL7 v3's "
                    + "'urn:hl7-org:v3', so it is not a CDA document.", context: .init(field: "ClinicalDocument"))
        }
    }

    static func code(of element: XMLElementView) -> CDACode {
        CDACode(
            code: element.attribute("code"), codeSystem: element.attribute("codeSystem"),
            codeSystemName: element.attribute("codeSystemName"),
            displayName: element.attribute("displayName") ?? element.child("originalText")?.text)
    }

    static func templateIDs(of element: XMLElementView) -> [String] {
        element.elements.compactMap { template in
            guard template.isNamed("templateId") else { return nil }
            guard let root = template.attribute("root") else { return nil }
            return template.attribute("extension").map { "\(root):\($0)" } ?? root
        }
    }

    /// `<name><prefix/><given/>…<family/><suffix/></name>`, or a name written as plain text.
    static func personName(_ name: XMLElementView) -> String? {
        let parts = ["prefix", "given", "family", "suffix"].map { part in name.elements.filter { $0.isNamed(part) } }
        guard parts.contains(where: { !$0.isEmpty }) else { return name.text }
        let text = parts.joined().compactMap(\.text).joined(separator: " ")
        return text.isEmpty ? nil : text
    }

    private static func authorName(_ root: XMLElementView) -> String? {
        for author in root.elements where author.isNamed("author") {
            guard let assigned = author.child("assignedAuthor") else { continue }
            if let name = assigned.child("assignedPerson")?.child("name").flatMap(personName) { return name }
            if let device = assigned.child("assignedAuthoringDevice"), let name = deviceName(device) { return name }
            if let organization = assigned.child("representedOrganization")?.child("name")?.text { return organization }
        }
        return nil
    }

    /// An authoring device's name: its `manufacturerModelName` then its `softwareName`, joined by a space
    /// ("Epic EpicCare 2023"); one of them alone when the other is missing, or when both say the same.
    static func deviceName(_ device: XMLElementView) -> String? {
        let model = device.child("manufacturerModelName")?.text
        let software = device.child("softwareName")?.text
        switch (model, software) {
        case let (model?, software?): return model == software ? model : model + " " + software
        case let (model?, nil): return model
        case let (nil, software?): return software
        case (nil, nil): return nil
        }
    }

    /// A timestamp, or `nil` for an absent or malformed one (a bad time in one entry must not lose the rest).
    static func timestamp(_ text: String?) -> HL7Timestamp? {
        guard let text, !text.isEmpty else { return nil }
        return try? HL7Timestamp(parsing: text)
    }

    /// Sections under `component/structuredBody/component/section`, or directly under `component/section`
    /// as Apple Health writes them.
    private static func sections(of root: XMLElementView) -> [CDASection] {
        var sections: [CDASection] = []
        for component in root.elements where component.isNamed("component") {
            if let body = component.child("structuredBody") {
                for inner in body.elements where inner.isNamed("component") {
                    if let element = inner.child("section") { sections.append(section(from: element)) }
                }
            } else {
                for element in component.elements where element.isNamed("section") {
                    sections.append(section(from: element))
                }
            }
        }
        return sections
    }

    private static func section(from element: XMLElementView) -> CDASection {
        let code = element.child("code").map(code(of:))
        let templates = templateIDs(of: element)
        var entries: [CDAEntry] = []
        for entry in element.elements where entry.isNamed("entry") { CDAEntryExtractor.append(entry, to: &entries) }
        return CDASection(
            kind: CDASection.kind(code: code?.code, templateIDs: templates), code: code, templateIDs: templates,
            title: element.child("title")?.text, entries: entries)
    }
}
