public import CloudantBase

/// The object-model error codes, each with its category.
extension CloudantError.Code {
    /// A model file breaks the format: the error's `CloudantError.underlying` is a
    /// ``ModelFileIssues`` listing every problem with its place in the file.
    ///
    /// Fix the members named; `cloudant model validate FILE` lists them all.
    public static let invalidModel = Self("invalidModel", category: .invalidInput)

    /// A document does not follow the Core Data bridge's schema for its entity: the context names the
    /// document (`documentID`), the entity (`kind`) and the property (`field`); the
    /// `CloudantError.underlying` is a ``SchemaViolation``.
    ///
    /// Rewrite the document's property as the schema says, or run `cloudant model check` to list them all.
    public static let schemaViolation = Self("schemaViolation", category: .invalidInput)

    /// The store's `CDTISMetaData` names model version hashes that no version of the model has, so its
    /// documents cannot be read or migrated safely.
    ///
    /// Open the store with the model it was written with, or add that version to the model file.
    public static let modelMismatch = Self("modelMismatch", category: .invalidInput)

    /// A delete was refused by a relationship whose delete rule is `deny`: the context names the object
    /// (`documentID`), its entity (`kind`) and the relationship (`field`).
    ///
    /// Delete or detach the related objects first.
    public static let deleteDenied = Self("deleteDenied", category: .conflict)
}

/// How a document breaks the Core Data bridge's schema: the typed context of a
/// `CloudantError.Code.schemaViolation` error.
///
/// ```swift
/// catch let error as CloudantError where error.code == .schemaViolation {
///     print(error.context.documentID ?? "?", error.context.field ?? "?", error.schemaViolation?.problem as Any)
/// }
/// ```
public struct SchemaViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which rule the document breaks.
    public enum Problem: Sendable, Hashable {
        /// `CDTISEntityName` is missing or not a string.
        case missingEntityName
        /// `CDTISEntityName` names no entity of the model.
        case unknownEntity
        /// The document is of another entity than the one read.
        case otherEntity(String)
        /// A required attribute has no value and no default.
        case missingValue
        /// The value is of the wrong JSON type for the property's type.
        case wrongType(expected: String)
        /// An integer does not fit the property's type.
        case outOfRange
        /// The `CDTISMeta_` member is not what the property's type needs (the member path names the part).
        case malformedMetadata(String)
        /// Base64 text that does not decode.
        case malformedBase64
        /// Decimal text that does not parse, or an `nsdecimal` image that is not 20 bytes.
        case malformedDecimal
        /// A `CDTISObjectVersion` that is not an integer.
        case malformedObjectVersion
        /// A member the entity does not have (reported by checks, ignored when reading).
        case unknownProperty
        /// A relationship names a document that does not exist or is of another entity.
        case danglingRelation(String)
        /// The value is kept as an attachment whose bytes were not read with the document.
        case attachmentNotLoaded
    }

    /// The document id, when known.
    public var documentID: String?
    /// The entity.
    public var entity: String?
    /// The property (or `CDTIS` member).
    public var property: String?
    /// What is wrong.
    public var problem: Problem

    /// Creates the context of a violation.
    public init(documentID: String?, entity: String?, property: String?, problem: Problem) {
        self.documentID = documentID
        self.entity = entity
        self.property = property
        self.problem = problem
    }

    /// What is wrong, in words, without any value from the document.
    public var reason: String {
        switch problem {
        case .missingEntityName: "has no CDTISEntityName string"
        case .unknownEntity: "names an entity the model does not have"
        case .otherEntity(let other): "is a '\(other)' object"
        case .missingValue: "has no value and the attribute has no default"
        case .wrongType(let expected): "holds the wrong JSON type (expected \(expected))"
        case .outOfRange: "holds an integer out of the type's range"
        case .malformedMetadata(let member): "has a malformed \(member)"
        case .malformedBase64: "holds text that is not base64"
        case .malformedDecimal: "holds a malformed decimal"
        case .malformedObjectVersion: "holds a CDTISObjectVersion that is not an integer"
        case .unknownProperty: "is not a property of the entity"
        case .danglingRelation(let id): "names \(id), which is missing or of another entity"
        case .attachmentNotLoaded: "is stored as an attachment that was not read; fetch through ModelStore"
        }
    }

    /// The document, entity and property, and the problem.
    public var description: String {
        "SchemaViolation(document: \(documentID ?? "?"), entity: \(entity ?? "?"), property: \(property ?? "-"), \(reason))"
    }

    /// The violation as a `CloudantError` with code `CloudantError.Code.schemaViolation`.
    public var error: CloudantError {
        CloudantError(
            .schemaViolation,
            "Document \(documentID ?? "(no id)") (\(entity ?? "no entity")): \(property.map { "property '\($0)' " } ?? "")"
                + "\(reason). Rewrite it as the Core Data bridge's schema says (cloudant model check lists them all).",
            context: .init(documentID: documentID, kind: entity, field: property), underlying: self)
    }
}

/// Every problem found in a model file: the typed context of a `CloudantError.Code.invalidModel`
/// error.
public struct ModelFileIssues: Error, Sendable, Hashable, CustomStringConvertible {
    /// One problem.
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// Where in the file: a member path such as `versions[1].entities.Recipe.properties.name.type`.
        public var path: String
        /// What is wrong and what to write instead.
        public var message: String

        /// Creates an issue.
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        /// `path: message`.
        public var description: String { "\(path): \(message)" }
    }

    /// The problems, in file order.
    public var issues: [Issue]

    /// Creates the list.
    public init(issues: [Issue]) { self.issues = issues }

    /// One issue per line.
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// Errors about model files and the documents they describe.
extension CloudantError {
    /// The violation a `CloudantError.Code.schemaViolation` error is about.
    public var schemaViolation: SchemaViolation? { underlying as? SchemaViolation }
    /// The issues of a `CloudantError.Code.invalidModel` error.
    public var modelFileIssues: ModelFileIssues? { underlying as? ModelFileIssues }
}
