public import CloudantCore

/// The JSON indexes care queries run on. Every index but ``byEventKey`` leads with `entityType`, so one index
/// serves every kind (a document is only in an index when it has all of the index's fields, so
/// `care-task-uuid` holds outcomes only and costs other kinds nothing).
public enum CareIndexes {
    /// The design document holding the care indexes.
    public static let designDocument = "care"

    /// By kind and developer id: histories, `ids` queries.
    public static let byID = index("care-id", "id")
    /// By kind and version uuid: `uuids` queries.
    public static let byUUID = index("care-uuid", "uuid")
    /// By kind and effective date: date-interval queries and the fallback for every query.
    public static let byEffectiveDate = index("care-effective-date", "effectiveDate")
    /// By kind and creation date: queries by ``CareQuery/createdDateInterval``.
    public static let byCreatedDate = index("care-created-date", "createdDate")
    /// By kind and remote id.
    public static let byRemoteID = index("care-remote-id", "remoteID")
    /// By kind and group identifier.
    public static let byGroupIdentifier = index("care-group", "groupIdentifier")
    /// By kind and tags (array members are filtered after the kind range is scanned).
    public static let byTags = index("care-tags", "tags")
    /// By kind and patient version: care plans of a patient.
    public static let byPatientUUID = index("care-patient-uuid", "patientUUID")
    /// By kind and care plan version: tasks and contacts of a plan.
    public static let byCarePlanUUID = index("care-care-plan-uuid", "carePlanUUID")
    /// By kind and task version: outcomes of a task.
    public static let byTaskUUID = index("care-task-uuid", "taskUUID")
    /// By `careEventKey`, one member holding an outcome's event length class and event start: outcomes by
    /// event date, one two-sided range per class. The only index not led by the kind: only outcomes have the
    /// member, and an equality on a leading column would keep the store from seeking on the ones after it.
    public static let byEventKey = IndexDefinition(
        name: "care-event-key", designDocument: designDocument, fields: [.ascending(EventSpan.field)])

    /// The indexes every care kind needs.
    public static let common = [byID, byUUID, byEffectiveDate, byCreatedDate, byRemoteID, byGroupIdentifier, byTags]

    /// The indexes a kind with `relation` needs.
    public static func indexes(relation: CareRelation?) -> [IndexDefinition] {
        var result = common
        switch relation?.field {
        case "patientUUID"?: result.append(byPatientUUID)
        case "carePlanUUID"?: result.append(byCarePlanUUID)
        case "taskUUID"?: result += [byTaskUUID, byEventKey]
        default: break
        }
        return result
    }

    private static func index(_ name: String, _ field: String) -> IndexDefinition {
        IndexDefinition(
            name: name, designDocument: designDocument, fields: [.ascending(CareDocument.kindField), .ascending(field)])
    }
}
