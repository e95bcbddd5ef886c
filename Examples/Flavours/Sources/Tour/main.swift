// The README's five-minute tour, as one program: each region between `// tour: NAME` and `// tour: end` is a
// code block of the README, word for word (`.ci/check-readme.py` compares them), and CI builds and runs this
// file (from an empty folder: the tour's stores are created in the working directory).
import CloudantCareHealth
import CloudantServer
import Foundation

// tour: store
struct Note: CloudantEntity {        // Codable, Identifiable and Sendable, with its revision in revId
    var id: String
    var text: String
    var day: Int
    var revId: String?
}

var registry = try EntityRegistry.careHealth()      // the care and health kinds, for later in the tour
try registry.register(EntityKind(Note.self))
let store = try DocumentStore.open(name: "notes", options: StoreOptions(registry: registry))

var notes: [Note] = try await store.add([
    Note(id: "n1", text: "Call the clinic", day: 1),
    Note(id: "n2", text: "Walk to the pharmacy", day: 2),
])                                                  // one transaction
notes[0].text = "Call the clinic at 9"
notes = try await store.update(notes)               // a stale revId would be a typed .conflict
let raw = try await store.document(id: "n1", options: ReadOptions(revs: true))   // the CouchDB document
// tour: end

// tour: query
try await store.createIndex(IndexDefinition(name: "by-day", fields: [.ascending("day")]))
let request = try FindRequest(JSONValue(parsing: """
    {"selector": {"day": {"$lte": 2}}, "sort": [{"day": "desc"}], "limit": 10}
    """))
let soon = try await store.find(request)            // soon.docs; soon.bookmark pages on
let plan = try await store.explain(request)         // CouchDB's _explain: the index chosen, and why
print(soon.docs.count, "notes, index", plan["index"]?["name"]?.stringValue ?? "none")

let walks = try await store.collection(Note.self)
    .where(.simpleComponent("text", .equal, "Walk to the pharmacy"))
    .get(Note.self)
// tour: end

// tour: serve
let server = try CouchServer(configuration: ServerConfiguration(
    port: 0, directory: StoreDirectory(path: "served"), admin: ServerAdmin(name: "admin", password: "secret")))
let serving = Task { try await server.run() }
let port = try await server.port()                  // port 0: the system picked a free one
print("CouchDB's API on http://127.0.0.1:\(port)")
// tour: end

// tour: sync
// Any CouchDB 3 or Cloudant database URL works the same; the server above stands in for one.
let couch = try HTTPPeer(
    url: URL(string: "http://127.0.0.1:\(port)/notes")!,
    authentication: .basic(user: "admin", password: "secret"))
try await couch.createIfMissing()
let (pushed, pulled) = try await Replicator.sync(LocalPeer(store), couch)
print("pushed \(pushed.docsWritten), pulled \(pulled.docsWritten)")
// tour: end

// tour: care
let care = CareStore(store: store)
let today = Calendar.current.startOfDay(for: Date())
let walk = CareTask(
    id: "walk", title: "Walk 20 minutes", carePlanUUID: nil,
    schedule: try .dailyAtTime(hour: 8, minutes: 0, start: today, end: nil, text: nil))
let scheduled: [CareTask] = try await care.add([walk])
let week = try await care.events(forTask: "walk", from: today, to: today.addingTimeInterval(7 * 86_400))
let done = Outcome(
    taskUUID: week[0].task.uuid, taskOccurrenceIndex: week[0].occurrence, values: [OutcomeValue(.boolean(true))])
let recorded: [Outcome] = try await care.add([done])   // a second outcome for the event is a conflict
// tour: end

// tour: health
let steps = QuantitySample(
    uuid: UUID().uuidString, typeIdentifier: "HKQuantityTypeIdentifierStepCount", value: 1_200, unit: "count",
    startDate: today.addingTimeInterval(9 * 3_600), endDate: today.addingTimeInterval(9 * 3_600 + 600))
let stored: [QuantitySample] = try await store.add([steps])
let daily = try await HealthStore(store: store).statistics(
    ofType: "HKQuantityTypeIdentifierStepCount", from: today, to: today.addingTimeInterval(86_400), by: .day)
print(daily.total ?? 0, "steps today")
// tour: end

await server.shutdown()
try await serving.value
// What the tour did, checked, so a change that breaks it fails CI rather than printing something else.
let events = try await care.events(forTask: "walk", from: today, to: today.addingTimeInterval(86_400))
guard raw["_revisions"]?["ids"]?.arrayValue?.count == 2, soon.docs.count == 2, walks.count == 1, pushed.docsWritten >= 3,
    pulled.docsWritten == 0, week.count == 7, events.first?.outcome != nil, daily.total == 1_200
else {
    print("the tour did not do what the README says")
    exit(1)
}
print("tour ok")
