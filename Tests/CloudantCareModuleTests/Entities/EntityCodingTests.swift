import CloudantCareModule
import CloudantCore
import Foundation
import Testing

@Suite("Care entity JSON")
struct EntityCodingTests {
    private func roundTrip<Entity: Codable & Equatable>(_ entity: Entity) throws -> Entity {
        let data = try CloudantJSONCoding.makeEncoder().encode(entity)
        return try CloudantJSONCoding.makeDecoder().decode(Entity.self, from: data)
    }

    private func object(_ value: some Encodable, encoder: JSONEncoder = CloudantJSONCoding.makeEncoder()) throws
        -> [String: Any]
    {
        let data = try encoder.encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func sampleTask() throws -> CareTask {
        let utc = try Zone.utc()
        var task = CareTask(
            id: "meds", title: "Take meds", carePlanUUID: testUUID(9),
            schedule: try Schedule.dailyAtTime(
                hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: "morning",
                targetValues: [OutcomeValue(.double(2.5), units: "mg", createdDate: utc.date(2024, 1, 1))],
                calendar: utc.calendar),
            uuid: testUUID(1), timezone: utc.timeZone)
        task.instructions = "With food"
        task.tags = ["morning"]
        task.groupIdentifier = "pills"
        task.userInfo = ["className": "Task"]
        task.notes = [Note(author: "Dr. Lee", title: "Dose", content: "Half on Sundays")]
        task.createdDate = try utc.date(2024, 1, 1, 7, 0, 0)
        task.schemaVersion = .careStore
        return task
    }

    @Test func aTaskRoundTripsThroughTheStoreCoding() throws {
        let task = try sampleTask()
        #expect(try roundTrip(task) == task)
    }

    @Test func theSharedFieldsAreWrittenFlatBesideTheEntityFields() throws {
        let json = try object(try sampleTask())
        #expect(json["versioned"] == nil)
        #expect(json["id"] as? String == "meds")
        #expect(json["uuid"] as? String == testUUID(1).uuidString)
        #expect(json["title"] as? String == "Take meds")
        #expect(json["effectiveDate"] as? String == "2024-01-01T08:00:00.000Z")
        #expect(json["createdDate"] as? String == "2024-01-01T07:00:00.000Z")
        #expect(json["previousVersionUUIDs"] as? [String] == [])
        // Foundation on Linux names UTC "GMT"; what matters is that CareKit's {"identifier": …} shape is kept.
        #expect((json["timezone"] as? [String: Any])?["identifier"] as? String == (try Zone.utc().timeZone.identifier))
        #expect((json["schedule"] as? [String: Any])?["elements"] is [Any])
        let version = try #require(json["schemaVersion"] as? [String: Int])
        #expect(version == ["majorVersion": 2, "minorVersion": 1, "patchNumber": 0])
    }

    @Test func careKitsNumericDatesDecodeWithTheStoreDecoder() throws {
        let task = try sampleTask()
        // A plain JSONEncoder writes dates as seconds since 2001-01-01, as CareKit does.
        let careKitJSON = try JSONEncoder().encode(task)
        #expect(try object(task, encoder: JSONEncoder())["effectiveDate"] is Double)
        let decoded = try CloudantJSONCoding.makeDecoder().decode(CareTask.self, from: careKitJSON)
        #expect(decoded == task)
    }

    @Test func iso8601DatesDecodeWithAPlainDecoder() throws {
        let task = try sampleTask()
        let storeJSON = try CloudantJSONCoding.makeEncoder().encode(task)
        #expect(try JSONDecoder().decode(CareTask.self, from: storeJSON) == task)
    }

    @Test func aCareKit4TaskAsCareKitWritesItDecodes() throws {
        let json = """
            {"id":"steps","uuid":"6C0A3E58-7D43-4B6A-9E5C-1E2F6A3B4C5D","title":"Walk","impactsAdherence":false,
             "effectiveDate":725846400,"previousVersionUUIDs":[],"nextVersionUUIDs":[],
             "timezone":{"identifier":"America/New_York"},
             "schemaVersion":{"majorVersion":2,"minorVersion":1,"patchNumber":0},
             "schedule":{"elements":[{"start":725846400,"interval":{"minute":0,"hour":0,"second":0,"day":1,"month":0,
               "year":0,"weekOfYear":0},"duration":{"isAllDay":false,"seconds":3600},"targetValues":[
               {"type":"integer","value":5000,"units":"steps","createdDate":725846400}],
               "calendar":{"identifier":"gregorian","firstWeekday":1,"minimumDaysInFirstWeek":1,
               "timeZone":{"identifier":"America/New_York"},"locale":{"identifier":"en_US"}}}]}}
            """
        let task = try CloudantJSONCoding.makeDecoder().decode(CareTask.self, from: Data(json.utf8))
        #expect(task.effectiveDate == Date(timeIntervalSinceReferenceDate: 725_846_400))
        #expect(task.impactsAdherence == false)
        #expect(task.timezone.identifier == "America/New_York")
        let element = try #require(task.schedule.elements.first)
        #expect(element.interval == .daily)
        #expect(element.duration == .seconds(3600))
        #expect(element.targetValues.first?.value == .integer(5000))
        #expect(element.calendar.timeZone.identifier == "America/New_York")
    }

    @Test func aCareKit3ScheduleElementWithoutACalendarDecodes() throws {
        let json = """
            {"start":"2024-01-01T08:00:00Z","end":"2024-02-01T00:00:00Z","interval":{"day":2},
             "duration":{"isAllDay":true},"text":"every other day","targetValues":[]}
            """
        let element = try CloudantJSONCoding.makeDecoder().decode(ScheduleElement.self, from: Data(json.utf8))
        #expect(element.calendar.identifier == .gregorian)
        #expect(element.interval == ScheduleInterval(days: 2))
        #expect(element.duration == .allDay)
        #expect(element.end != nil)
    }

    @Test func everyOutcomeValueKindRoundTripsWithCareKitsTypeNames() throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let values: [OutcomeValue] = [
            OutcomeValue(.integer(3), createdDate: created), OutcomeValue(.double(98.6), units: "F", createdDate: created),
            OutcomeValue(.boolean(true), kind: "taken", createdDate: created),
            OutcomeValue(.text("fine"), createdDate: created), OutcomeValue(.binary(Data([0, 1, 2])), createdDate: created),
            OutcomeValue(.date(created.addingTimeInterval(60)), createdDate: created),
        ]
        for value in values {
            #expect(try roundTrip(value) == value)
            #expect(try object(value)["type"] as? String == value.type.rawValue)
        }
        #expect(values.map(\.type) == OutcomeValueType.allCases)
        #expect(try object(values[1])["units"] as? String == "F")
        #expect(try object(values[4])["value"] as? String == "AAEC")
    }

    @Test func anOutcomeRoundTripsAndDefaultsItsIDToItsUUID() throws {
        let outcome = Outcome(
            taskUUID: testUUID(1), taskOccurrenceIndex: 4,
            values: [OutcomeValue(.boolean(true), createdDate: Date(timeIntervalSince1970: 0))], uuid: testUUID(7),
            effectiveDate: Date(timeIntervalSince1970: 0), timezone: try Zone.utc().timeZone)
        #expect(outcome.id == testUUID(7).uuidString)
        #expect(try roundTrip(outcome) == outcome)
        #expect(try object(outcome)["taskOccurrenceIndex"] as? Int == 4)
    }

    @Test func aPatientRoundTripsWithNameSexBirthdayAndAllergies() throws {
        let utc = try Zone.utc()
        var patient = Patient(
            id: "jane", name: PersonNameComponents(givenName: "Jane", familyName: "Doe"), uuid: testUUID(2),
            effectiveDate: try utc.date(2024, 1, 1), timezone: utc.timeZone)
        patient.sex = .other("intersex")
        patient.birthday = try utc.date(1980, 6, 15)
        patient.allergies = ["penicillin"]
        #expect(try roundTrip(patient) == patient)
        let json = try object(patient)
        #expect(json["sex"] as? String == "intersex")
        #expect((json["name"] as? [String: String])?["givenName"] == "Jane")
        #expect(patient.age(on: try utc.date(2024, 6, 14), calendar: utc.calendar) == 43)
        #expect(BiologicalSex(rawValue: "female") == .female)
    }

    @Test func aContactRoundTripsWithEveryKindOfContactDetail() throws {
        let utc = try Zone.utc()
        var contact = Contact(
            id: "dr-lee", name: PersonNameComponents(givenName: "Ann", familyName: "Lee"), carePlanUUID: testUUID(3),
            uuid: testUUID(4), effectiveDate: try utc.date(2024, 1, 1), timezone: utc.timeZone)
        contact.address = PostalAddress(street: "1 Main St", city: "Springfield", postalCode: "12345", isoCountryCode: "US")
        contact.emailAddresses = [LabeledValue(label: "work", value: "ann@example.org")]
        contact.messagingNumbers = [LabeledValue(label: "mobile", value: "+1 555 0101")]
        contact.phoneNumbers = [LabeledValue(label: "work", value: "+1 555 0100")]
        contact.otherContactInfo = [LabeledValue(label: "pager", value: "42")]
        contact.organization = "Clinic"
        contact.title = "Family Practice Doctor"
        contact.role = "GP"
        contact.category = .careProvider
        #expect(try roundTrip(contact) == contact)
        #expect(try object(contact)["category"] as? String == "careProvider")
    }

    @Test func aCarePlanRoundTrips() throws {
        let plan = CarePlan(
            id: "diabetes", title: "Diabetes", patientUUID: testUUID(2), uuid: testUUID(3),
            effectiveDate: Date(timeIntervalSince1970: 0), timezone: try Zone.utc().timeZone)
        #expect(try roundTrip(plan) == plan)
    }

    @Test func aHealthKitLinkedTaskIsOneFlatObjectWithItsLinkage() throws {
        var linked = HealthKitLinkedTask(
            task: try sampleTask(),
            healthKitLinkage: HealthKitLinkage(
                quantityIdentifier: "HKQuantityTypeIdentifierStepCount", quantityType: .cumulative, unitString: "count"))
        linked.title = "Walk"
        #expect(linked.task.title == "Walk")
        #expect(try roundTrip(linked) == linked)
        let json = try object(linked)
        #expect(json["title"] as? String == "Walk")
        let linkage = try #require(json["healthKitLinkage"] as? [String: String])
        #expect(linkage == [
            "quantityIdentifier": "HKQuantityTypeIdentifierStepCount", "quantityType": "cumulative",
            "unitString": "count",
        ])
    }

    @Test func minimalJSONTakesItsIdentityFromTheDecodersDefaults() throws {
        let json = """
            {"id":"meds","title":"Meds","schedule":{"elements":[{"start":"2024-01-01T08:00:00Z",
             "interval":{"day":1},"duration":{"isAllDay":false,"seconds":600}}]}}
            """
        let decoder = CloudantJSONCoding.makeDecoder()
        let utc = try Zone.utc()
        decoder.userInfo[CareDecodingDefaults.userInfoKey] = CareDecodingDefaults(
            makeUUID: { testUUID(42) }, now: { Date(timeIntervalSince1970: 0) }, timeZone: utc.timeZone)
        let task = try decoder.decode(CareTask.self, from: Data(json.utf8))
        #expect(task.uuid == testUUID(42))
        #expect(task.effectiveDate == (try utc.date(2024, 1, 1, 8)))
        #expect(task.timezone == utc.timeZone)
        #expect(task.previousVersionUUIDs.isEmpty)

        #expect(throws: DecodingError.self) {
            try CloudantJSONCoding.makeDecoder().decode(CareTask.self, from: Data(json.utf8))
        }
    }

    @Test func userInfoRoundTripsOnEveryEntity() throws {
        var plan = CarePlan(
            id: "p", title: "Plan", patientUUID: nil, uuid: testUUID(1), effectiveDate: Date(timeIntervalSince1970: 0),
            timezone: try Zone.utc().timeZone)
        plan.userInfo = ["ACL": "{\"*\":{\"read\":true}}", "className": "CarePlan"]
        #expect(try roundTrip(plan).userInfo == plan.userInfo)
    }

    @Test func semanticVersionsParseAndOrder() {
        #expect(SemanticVersion("2.1") == SemanticVersion(majorVersion: 2, minorVersion: 1))
        #expect(SemanticVersion("2.1.0.4") == nil)
        #expect(SemanticVersion("2.x") == nil)
        #expect(SemanticVersion(majorVersion: 2, minorVersion: 10) > SemanticVersion(majorVersion: 2, minorVersion: 9))
        #expect(SemanticVersion.careStore.description == "2.1.0")
    }

    @Test func storedEntitiesDecodeFromParsedValuesAsJSONDecoderDecodesTheirText() throws {
        let task = try sampleTask()
        let careKitTask = try JSONEncoder().encode(task)  // numeric dates, as CareKit writes them
        var outcome = Outcome(
            taskUUID: testUUID(1), taskOccurrenceIndex: 3,
            values: [OutcomeValue(.double(2.5), units: "mg", createdDate: task.effectiveDate), OutcomeValue(.text("ok"))],
            uuid: testUUID(2), effectiveDate: task.effectiveDate, timezone: task.timezone)
        outcome.tags = ["a"]
        let texts = [
            try JSONValue(encoding: task).jsonString(), String(decoding: careKitTask, as: UTF8.self),
            try JSONValue(encoding: outcome).jsonString(),
        ]
        for text in texts {
            let value = try JSONValue(parsing: Array(text.utf8))
            let decoder = CloudantJSONCoding.makeDecoder()
            if text.contains("taskOccurrenceIndex") {
                #expect(try value.decode(Outcome.self) == decoder.decode(Outcome.self, from: Data(text.utf8)))
            } else {
                #expect(try value.decode(CareTask.self) == decoder.decode(CareTask.self, from: Data(text.utf8)))
            }
        }
    }
}
