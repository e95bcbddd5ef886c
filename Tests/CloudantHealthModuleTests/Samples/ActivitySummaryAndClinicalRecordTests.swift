import CloudantCore
@testable import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("Calendar days")
struct CalendarDayTests {
    @Test func parsesOnlyRealDaysWrittenAsYearMonthDay() {
        #expect(CalendarDay(parsing: "2024-03-05") == CalendarDay(year: 2024, month: 3, day: 5))
        #expect(CalendarDay(parsing: "2024-02-29") != nil)
        for text in ["2023-02-29", "2024-13-01", "2024-04-31", "2024-3-5", "20240305", "2024-03-05T00:00:00Z", ""] {
            #expect(CalendarDay(parsing: text) == nil, "\(text)")
        }
    }

    @Test func encodesAsItsTextAndSortsInCalendarOrder() throws {
        let day = try #require(CalendarDay(parsing: "0999-01-02"))
        #expect(day.description == "0999-01-02")
        #expect(try JSONValue(encoding: day) == "0999-01-02")
        #expect(try JSONValue.string("2024-03-05").decode(CalendarDay.self) == CalendarDay(parsing: "2024-03-05"))
        #expect(throws: CloudantError.self) { try JSONValue.string("2024-02-30").decode(CalendarDay.self) }
        let newYearsEve = try #require(CalendarDay(parsing: "2023-12-31"))
        let newYear = try #require(CalendarDay(parsing: "2024-01-01"))
        #expect(newYearsEve < newYear)
    }

    @Test func theFloatingIntervalIsUTCMidnightToMidnightAndAZonedOneFollowsDaylightSaving() throws {
        let day = try #require(CalendarDay(parsing: "2024-03-10"))
        #expect(day.floatingInterval.start == ISO8601DateFormatter().date(from: "2024-03-10T00:00:00Z"))
        #expect(day.floatingInterval.duration == 86_400)
        let pacific = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let local = day.interval(in: pacific)
        #expect(local.start == ISO8601DateFormatter().date(from: "2024-03-10T08:00:00Z"))
        #expect(local.duration == 23 * 3600)
    }
}

@Suite("Activity summary and clinical record samples")
struct ActivitySummaryAndClinicalRecordTests {
    @Test func anActivitySummarysIdDependsOnItsDayAlone() throws {
        let day = try #require(CalendarDay(parsing: "2024-03-05"))
        let first = ActivitySummarySample(day: day, activeEnergyBurned: HealthQuantity(value: 100, unit: .kilocalorie))
        let later = ActivitySummarySample(day: day, activeEnergyBurned: HealthQuantity(value: 512.3, unit: .kilocalorie))
        #expect(first.id == later.id && first.uuid == ActivitySummarySample.uuid(for: day))
        #expect(first.id.count == 36 && first.id == first.id.uppercased())
        let next = try #require(CalendarDay(parsing: "2024-03-06"))
        #expect(ActivitySummarySample.uuid(for: next) != first.id)
    }

    @Test func fhirDatesOfEveryPrecisionAreRead() throws {
        let utc = try #require(FHIRInstant(parsing: "2024-03-05T09:30:00Z"))
        #expect(utc.date == ISO8601DateFormatter().date(from: "2024-03-05T09:30:00Z") && utc.utcOffset == 0)
        let offset = try #require(FHIRInstant(parsing: "2024-03-05T09:30:00.250+01:00"))
        #expect(offset.utcOffset == 3600)
        #expect(offset.date.timeIntervalSince(utc.date) == -3600 + 0.25)
        #expect(FHIRInstant(parsing: "2024-03-05")?.date == ISO8601DateFormatter().date(from: "2024-03-05T00:00:00Z"))
        #expect(FHIRInstant(parsing: "2024-03-05")?.utcOffset == nil)
        #expect(FHIRInstant(parsing: "2024-03")?.date == ISO8601DateFormatter().date(from: "2024-03-01T00:00:00Z"))
        #expect(FHIRInstant(parsing: "2024")?.date == ISO8601DateFormatter().date(from: "2024-01-01T00:00:00Z"))
        for text in ["", "March", "2024-13", "-2024", "2024-03-05T25:00:00Z"] {
            #expect(FHIRInstant(parsing: text) == nil, "\(text)")
        }
    }

    @Test func theClinicalDateIsTheMostSpecificDateTheResourceGives() throws {
        let report: JSONValue = try JSONValue(parsing: #"{"resourceType": "DiagnosticReport", "issued": "2024-02-02T00:00:00Z", "effectiveDateTime": "2024-01-01T08:00:00Z"}"#)
        #expect(FHIRFields.clinicalDate(of: report)?.start.date == ISO8601DateFormatter().date(from: "2024-01-01T08:00:00Z"))
        let procedure = try JSONValue(parsing: #"{"resourceType": "Procedure", "performedPeriod": {"start": "2024-01-01T08:00:00Z", "end": "2024-01-01T09:30:00Z"}}"#)
        let period = try #require(FHIRFields.clinicalDate(of: procedure))
        #expect(period.end.map { $0.date.timeIntervalSince(period.start.date) } == 5400)
        let immunization = try JSONValue(parsing: #"{"resourceType": "Immunization", "date": "2015-10-01"}"#)
        #expect(FHIRFields.clinicalDate(of: immunization)?.start.utcOffset == nil)
        #expect(FHIRFields.clinicalDate(of: ["resourceType": "Patient", "birthDate": "1988-04-12"]) == nil)
    }

    @Test func theClinicalTypeFollowsHealthKitsResourceMapping() throws {
        #expect(ClinicalTypeIdentifier.forResource(type: "Observation") == "HKClinicalTypeIdentifierLabResultRecord")
        #expect(ClinicalTypeIdentifier.forResource(type: "Observation", categories: ["vital-signs"])
            == "HKClinicalTypeIdentifierVitalSignRecord")
        #expect(ClinicalTypeIdentifier.forResource(type: "MedicationOrder") == "HKClinicalTypeIdentifierMedicationRecord")
        #expect(ClinicalTypeIdentifier.forResource(type: "AllergyIntolerance") == "HKClinicalTypeIdentifierAllergyRecord")
        #expect(ClinicalTypeIdentifier.forResource(type: "Patient") == ClinicalTypeIdentifier.otherRecord)
        let vital = try JSONValue(parsing: #"{"resourceType": "Observation", "category": {"coding": [{"code": "vital-signs"}]}}"#)
        #expect(FHIRFields.categoryCodes(of: vital) == ["vital-signs"])
        #expect(HealthSampleType(typeIdentifier: ClinicalTypeIdentifier.procedureRecord) == .clinicalRecord)
        #expect(HealthSampleType(typeIdentifier: ClinicalTypeIdentifier.otherRecord) == .clinicalRecord)
        #expect(HealthSampleType(typeIdentifier: ActivitySummarySample.activitySummaryTypeIdentifier) == .activitySummary)
        #expect(FHIRRelease(version: "1.0.2") == .dstu2 && FHIRRelease(version: "4.0.1") == .r4)
        #expect(FHIRRelease(version: "3.0.1") == nil)
    }

    @Test func aDisplayNameComesFromTheCodeVaccineMedicationOrSubstance() throws {
        let allergy = try JSONValue(parsing: #"{"resourceType": "AllergyIntolerance", "substance": {"text": "Penicillin"}}"#)
        #expect(FHIRFields.displayName(of: allergy) == "Penicillin")
        let vaccine = try JSONValue(parsing: #"{"resourceType": "Immunization", "vaccineCode": {"coding": [{"display": "Influenza, seasonal"}]}}"#)
        #expect(FHIRFields.displayName(of: vaccine) == "Influenza, seasonal")
        #expect(FHIRFields.displayName(of: ["resourceType": "Basic"]) == nil)
    }

    @Test func bothKindsRoundTripThroughTheStoreAsTheirOwnEntityKinds() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let day = try #require(CalendarDay(parsing: "2024-06-01"))
        let summary = ActivitySummarySample(
            day: day, activeEnergyBurned: HealthQuantity(value: 512.3, unit: try HealthUnit(parsing: "Cal")),
            appleStandHoursGoal: HealthQuantity(value: 12, unit: .count))
        let record = Self.labResult(uuid: "C1000000-0000-4000-8000-000000000001", at: TestDates.june1)
        try await harness.store.add([summary])
        try await harness.store.add([record])
        var storedSummary = try await harness.store.get(ActivitySummarySample.self, id: summary.id)
        #expect(storedSummary.revId != nil)
        storedSummary.revId = nil
        #expect(storedSummary == summary)
        var storedRecord = try await harness.store.get(ClinicalRecordSample.self, id: record.id)
        storedRecord.revId = nil
        #expect(storedRecord == record)
        let document = try await harness.store.document(id: record.id)
        #expect(document["entityType"] == "HKClinicalRecord")
        #expect(try await harness.store.document(id: summary.id)["day"] == "2024-06-01")
    }

    /// A glucose lab result taken at `date`, received a day later.
    static func labResult(uuid: String, at date: Date) -> ClinicalRecordSample {
        let data: JSONValue = [
            "resourceType": "Observation", "id": "glucose-1", "status": "final",
            "code": ["coding": [["system": "http://loinc.org", "code": "2345-7", "display": "Glucose"]], "text": "Glucose"],
            "valueQuantity": ["value": 5.4, "unit": "mmol/L"],
        ]
        return ClinicalRecordSample(
            uuid: uuid, displayName: "Glucose",
            fhirResource: FHIRResource(resourceType: "Observation", identifier: "glucose-1", fhirVersion: "4.0.1", data: data),
            receivedDate: date.addingTimeInterval(86_400), startDate: date, startUTCOffset: 0,
            source: HealthSource(name: "Riverside Health"))
    }
}
