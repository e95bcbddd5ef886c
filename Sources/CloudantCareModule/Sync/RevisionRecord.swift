/// Versions that changed together, with the knowledge vector they were stamped with (CareKit's
/// `OCKRevisionRecord`).
///
/// Within a record, parents come before the kinds that point at them (patients, plans, contacts, tasks,
/// outcomes), so a receiver never meets an outcome before its task.
public struct RevisionRecord: Sendable, Hashable, Codable {
    /// The versions, parents first.
    public var entities: [CareEntity]
    /// The stamp the versions carry.
    public var knowledgeVector: KnowledgeVector

    /// Creates a record.
    public init(entities: [CareEntity], knowledgeVector: KnowledgeVector) {
        self.entities = entities
        self.knowledgeVector = knowledgeVector
    }
}
