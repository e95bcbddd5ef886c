public import CloudantStore
public import Foundation
internal import CloudantCore

/// CareKit's store on a `DocumentStore`: versioned add, update and delete with CareKit's
/// guards, queries for the versions in effect, events with their outcomes, and knowledge-vector sync.
///
/// ```swift
/// let registry = try EntityRegistry(plugins: [CarePlugin()])
/// let documents = try DocumentStore.open(name: "care", options: StoreOptions(registry: registry))
/// let care = CareStore(store: documents)
/// let plan = try await care.add([CarePlan(id: "diabetes", title: "Diabetes", patientUUID: nil)])[0]
/// let today = try await care.events(forTask: "meds", from: midnight, to: nextMidnight)
/// ```
///
/// An actor, so writes that read a history and then extend it never interleave. Open one `CareStore` per
/// document store: the store's knowledge vector lives in a `_local` document this actor owns.
public actor CareStore {
    /// The document store holding the care documents.
    public nonisolated let store: DocumentStore
    /// The zone schedules are computed in when a call names none (CareKit uses the device's current zone).
    public nonisolated let timeZone: TimeZone
    let now: @Sendable () -> Date
    let makeUUID: @Sendable () -> UUID
    var clockState: ClockState?

    static let clockDocumentID = "_local/care-knowledge"

    /// Wraps a document store opened with a registry that has the ``CarePlugin``.
    ///
    /// - Parameters:
    ///   - store: The document store.
    ///   - timeZone: The zone schedules are computed in; the live default is the current one.
    ///   - now: The clock stamping `createdDate`, `updatedDate` and `deletedDate`; the live default is the system's.
    ///   - makeUUID: Mints version uuids and the store's process id; the live default is random.
    public init(
        store: DocumentStore, timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date = { Date() },
        makeUUID: @escaping @Sendable () -> UUID = { UUID() }
    ) {
        self.store = store
        self.timeZone = timeZone
        self.now = now
        self.makeUUID = makeUUID
    }

    struct ClockState {
        var process: UUID
        var vector: KnowledgeVector
        var rev: String?
    }

    /// This store's process id in knowledge vectors (minted on first use and kept in the store file).
    public func processID() async throws -> UUID { try await clock().process }

    /// What this store knows: its knowledge vector.
    public func knowledge() async throws -> KnowledgeVector { try await clock().vector }

    func clock() async throws -> ClockState {
        if let clockState { return clockState }
        let loaded: ClockState
        do {
            let document = try await store.localDocument(id: Self.clockDocumentID)
            guard let process = document["process"]?.stringValue.flatMap(UUID.init(uuidString:)),
                let vector = try document["knowledge"]?.decode(KnowledgeVector.self)
            else {
                throw CloudantError(
                    .invalidInput, "The care knowledge document is damaged; restore the store from a peer.",
                    context: .init(documentID: Self.clockDocumentID))
            }
            loaded = ClockState(process: process, vector: vector, rev: document["_rev"]?.stringValue)
        } catch let error as CloudantError where error.code == .notFound {
            let process = makeUUID()
            var state = ClockState(process: process, vector: KnowledgeVector([process: 1]), rev: nil)
            try await save(&state)
            loaded = state
        }
        clockState = loaded
        return loaded
    }

    /// Replaces the vector and persists it (CareKit #691 lost exactly this save).
    func setKnowledge(_ vector: KnowledgeVector) async throws {
        var state = try await clock()
        state.vector = vector
        try await save(&state)
        clockState = state
    }

    private func save(_ state: inout ClockState) async throws {
        let body: JSONObject = [
            "process": .string(state.process.uuidString), "knowledge": try JSONValue(encoding: state.vector),
        ]
        state.rev = try await store.putLocal(id: Self.clockDocumentID, body: body, rev: state.rev).rev
    }
}
