internal import CloudantCore
internal import Foundation

/// The few fields of a FHIR resource (DSTU2 or R4) a clinical record is indexed and shown by: its clinical
/// date, a display name and its category codes. Everything else stays in the resource, untouched.
enum FHIRFields {
    /// Where resources put their clinical date, most specific first. Periods contribute their start (and
    /// end). DSTU2 names come after their R4 counterparts (`date` for Immunization, `dateWritten` for
    /// MedicationOrder, `dateRecorded` for Condition).
    private static let dateMembers: [(name: String, isPeriod: Bool)] = [
        ("effectiveDateTime", false), ("effectivePeriod", true), ("effectiveInstant", false),
        ("onsetDateTime", false), ("onsetPeriod", true), ("onset", false), ("occurrenceDateTime", false),
        ("date", false), ("authoredOn", false), ("dateWritten", false), ("performedDateTime", false),
        ("performedPeriod", true), ("recordedDate", false), ("dateRecorded", false), ("issued", false),
    ]

    /// The first clinical date the resource gives, with the end of a period when it has one.
    static func clinicalDate(of resource: JSONValue) -> (start: FHIRInstant, end: FHIRInstant?)? {
        for member in dateMembers {
            guard let value = resource[member.name] else { continue }
            if member.isPeriod {
                if let start = value["start"]?.stringValue.flatMap(FHIRInstant.init(parsing:)) {
                    return (start, value["end"]?.stringValue.flatMap(FHIRInstant.init(parsing:)))
                }
            } else if let instant = value.stringValue.flatMap(FHIRInstant.init(parsing:)) {
                return (instant, nil)
            }
        }
        return nil
    }

    /// What the Health app would call the record: the text or first display of its code (or vaccine,
    /// medication, substance, type), else the resource's `description`, else a patient's name.
    static func displayName(of resource: JSONValue) -> String? {
        for member in ["code", "vaccineCode", "medicationCodeableConcept", "substance", "type"] {
            if let name = resource[member].flatMap(conceptText) { return name }
        }
        if let name = resource["medicationReference"]?["display"]?.stringValue, !name.isEmpty { return name }
        if let text = resource["description"]?.stringValue, !text.isEmpty { return text }
        if let name = resource["name"]?.arrayValue?.first {
            if let text = name["text"]?.stringValue, !text.isEmpty { return text }
            var parts = (name["given"]?.arrayValue ?? []).compactMap(\.stringValue)
            if let family = familyName(name["family"]) { parts.append(family) }
            if !parts.isEmpty { return parts.joined(separator: " ") }
        }
        return nil
    }

    /// The codes of the resource's `category`: an array of CodeableConcepts in R4, one in DSTU2.
    static func categoryCodes(of resource: JSONValue) -> [String] {
        guard let category = resource["category"] else { return [] }
        let concepts = category.arrayValue ?? [category]
        return concepts.flatMap { ($0["coding"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue } }
    }

    private static func conceptText(_ concept: JSONValue) -> String? {
        if let text = concept["text"]?.stringValue, !text.isEmpty { return text }
        let codings = concept["coding"]?.arrayValue ?? (concept.arrayValue?.first?["coding"]?.arrayValue ?? [])
        return codings.lazy.compactMap { $0["display"]?.stringValue }.first { !$0.isEmpty }
    }

    /// R4 writes `family` as text, DSTU2 as an array of texts.
    private static func familyName(_ value: JSONValue?) -> String? {
        if let text = value?.stringValue { return text }
        let parts = value?.arrayValue?.compactMap(\.stringValue) ?? []
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

/// A FHIR `dateTime` or `instant`: `2024-03-05T09:30:00+01:00`, or a date alone (`2024-03-05`, `2024-03`,
/// `2024`), which starts at midnight UTC and has no offset.
struct FHIRInstant: Hashable {
    var date: Date
    /// `nil` for a date without a time of day.
    var utcOffset: Int?

    init?(parsing text: String) {
        if text.utf8.count > 10 {
            // A time without a zone is not valid FHIR, but some servers send it; read it as UTC.
            guard let time = LocalTimestamp(parsing: text) ?? LocalTimestamp(parsing: text + "Z") else { return nil }
            date = time.date
            utcOffset = time.utcOffset
            return
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil }), text.utf8.first != UInt8(ascii: "-"),
            let day = CalendarDay(year: parts[0] ?? 0, month: parts.count > 1 ? parts[1] ?? 0 : 1,
                                  day: parts.count > 2 ? parts[2] ?? 0 : 1)
        else { return nil }
        date = day.floatingInterval.start
        utcOffset = nil
    }
}
