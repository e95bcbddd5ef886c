internal import CloudantBase
internal import Foundation

extension ObjectModel {
    /// The value of the model file's `format` member.
    public static let formatName = "cloudant-model"

    /// Reads and checks a model file (JSON; the format is in the CloudantModel article).
    ///
    /// ```swift
    /// let model = try ObjectModel(parsing: #"{"format":"cloudant-model","formatVersion":1,"name":"Notes","#
    ///     + #""versions":[{"version":1,"entities":{"Note":{"properties":{"text":{"type":"utf8"}}}}}]}"#)
    /// ```
    /// - Throws: `CloudantError` `CloudantError.Code.invalidModel` whose
    ///   `CloudantError.modelFileIssues` lists every problem with its path, or
    ///   `.invalidInput` with the byte position when the text is not JSON.
    public init(parsing text: String) throws {
        try self.init(parsing: Array(text.utf8))
    }

    /// Reads and checks a model file's bytes; see ``init(parsing:)-(String)``.
    public init(parsing bytes: [UInt8]) throws {
        let json = try JSONValue(parsing: bytes)
        var reader = ModelFileReader()
        let model = reader.read(json)
        if let model, reader.issues.isEmpty {
            self = model
            return
        }
        throw Self.invalid(reader.issues)
    }

    static func invalid(_ issues: [ModelFileIssues.Issue]) -> CloudantError {
        let first = issues.first.map { " First: \($0.path): \($0.message)" } ?? ""
        return CloudantError(
            .invalidModel,
            "The model file has \(issues.count) problem\(issues.count == 1 ? "" : "s").\(first)",
            context: .init(field: issues.first?.path), underlying: ModelFileIssues(issues: issues))
    }
}

/// Walks a model file's JSON, collecting every problem rather than stopping at the first.
struct ModelFileReader {
    var issues: [ModelFileIssues.Issue] = []

    /// Letters and digits, starting with a letter: Core Data's `symbolicName`.
    static func isSymbolic(_ name: String, allowingUnderscore: Bool = false) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || (allowingUnderscore && $0 == "_") }
    }
    /// Members generated types have of their own, and Swift keywords a property could not be named.
    static let reservedProperties: Set<String> = [
        "id", "revId", "objectVersion", "objectIdentifier", "entity", "self", "Type", "Protocol", "init", "deinit",
        "class", "struct", "enum", "protocol", "extension", "func", "var", "let", "if", "else", "for", "while",
        "return", "switch", "case", "default", "in", "is", "as", "try", "throw", "throws", "import", "public",
        "private", "internal", "static", "true", "false", "nil", "super", "where", "do", "repeat", "guard", "defer",
        "break", "continue", "fallthrough", "operator", "subscript", "typealias", "associatedtype", "inout", "any",
        "some", "await", "async", "rethrows", "fileprivate", "open", "catch",
    ]
    static let reservedEntities: Set<String> = [
        "Any", "Self", "Type", "Protocol", "String", "Int", "Double", "Float", "Bool", "Date", "Data", "Decimal",
        "ToOne", "ToMany", "ModelStore", "ModelEntity", "ObjectModel", "ModelVersion", "EntityDescription",
        "PropertyDescription", "TransformableValue", "JSONObject", "JSONValue", "Error",
    ]

    mutating func issue(_ path: String, _ message: String) {
        issues.append(.init(path: path, message: message))
    }

    mutating func read(_ json: JSONValue) -> ObjectModel? {
        guard let root = json.objectValue else {
            issue("$", "a model file is a JSON object")
            return nil
        }
        checkMembers(root, "$", allowed: ["format", "formatVersion", "name", "versions"])
        if root["format"]?.stringValue != ObjectModel.formatName {
            issue("format", "must be \"\(ObjectModel.formatName)\"")
        }
        if root["formatVersion"]?.numberValue?.int64Value != Int64(ObjectModel.formatVersion) {
            issue("formatVersion", "must be \(ObjectModel.formatVersion), the format version this package reads")
        }
        let name = root["name"]?.stringValue ?? ""
        if !Self.isSymbolic(name) {
            issue("name", "must be a name of letters and digits starting with a letter (it names the generated enum)")
        }
        guard let versionList = root["versions"]?.arrayValue, !versionList.isEmpty else {
            issue("versions", "must be a non-empty array of model versions, oldest first")
            return nil
        }
        var versions: [ModelVersion] = []
        for (index, value) in versionList.enumerated() {
            let path = "versions[\(index)]"
            guard let version = readVersion(value, path: path, previous: versions.last) else { continue }
            if let last = versions.last, version.version <= last.version {
                issue(path + ".version", "versions must be numbered in increasing order (after \(last.version))")
            }
            versions.append(version)
        }
        guard let current = versions.last, versions.count == versionList.count else { return nil }
        return ObjectModel(validatedName: name, versions: versions, current: current)
    }

    mutating func checkMembers(_ object: JSONObject, _ path: String, allowed: Set<String>) {
        for key in object.keys where !allowed.contains(key) {
            issue(path + "." + key, "is not a member of the format (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    mutating func readVersion(_ value: JSONValue, path: String, previous: ModelVersion?) -> ModelVersion? {
        guard let object = value.objectValue else {
            issue(path, "a model version is an object with \"version\" and \"entities\"")
            return nil
        }
        checkMembers(object, path, allowed: ["version", "entities"])
        guard let number = object["version"]?.numberValue?.int64Value, number >= 1, number <= Int64(Int32.max) else {
            issue(path + ".version", "must be a positive integer")
            return nil
        }
        guard let entityList = object["entities"]?.objectValue, !entityList.isEmpty else {
            issue(path + ".entities", "must be an object of at least one entity, keyed by entity name")
            return nil
        }
        var entities: [EntityDescription] = []
        let before = issues.count
        for (name, body) in entityList.members {
            if let entity = readEntity(name, body, path: path + ".entities." + name) { entities.append(entity) }
        }
        let version = ModelVersion(version: Int(number), entities: entities)
        checkRelationships(version, path: path)
        checkIndexNames(version, path: path)
        if let previous { checkMigration(from: previous, to: version, path: path) }
        return issues.count == before ? version : nil
    }

    mutating func readEntity(_ name: String, _ value: JSONValue, path: String) -> EntityDescription? {
        if !Self.isSymbolic(name) || Self.reservedEntities.contains(name) {
            issue(path, "an entity name is letters and digits starting with a letter, and not a Swift or CloudantModel type name")
        }
        guard let object = value.objectValue else {
            issue(path, "an entity is an object with \"properties\" (and optionally \"indexes\")")
            return nil
        }
        checkMembers(object, path, allowed: ["properties", "indexes"])
        guard let propertyList = object["properties"]?.objectValue, !propertyList.isEmpty else {
            issue(path + ".properties", "must be an object of at least one property, keyed by property name")
            return nil
        }
        var properties: [PropertyDescription] = []
        for (propertyName, body) in propertyList.members {
            if let property = readProperty(propertyName, body, path: path + ".properties." + propertyName) {
                properties.append(property)
            }
        }
        var indexes: [ModelIndex] = []
        if let indexValue = object["indexes"] {
            if let indexList = indexValue.objectValue {
                for (indexName, fieldsValue) in indexList.members {
                    let indexPath = path + ".indexes." + indexName
                    let fields = fieldsValue.arrayValue?.compactMap(\.stringValue) ?? []
                    if fields.isEmpty || fields.count != fieldsValue.arrayValue?.count {
                        issue(indexPath, "an index is a non-empty array of attribute names")
                        continue
                    }
                    for field in fields where properties.first(where: { $0.name == field })?.isRelationship != false {
                        issue(indexPath, "'\(field)' is not an attribute of \(name)")
                    }
                    indexes.append(ModelIndex(name: indexName, fields: fields))
                }
            } else {
                issue(path + ".indexes", "must be an object of index name to an array of attribute names")
            }
        }
        return EntityDescription(name: name, properties: properties, indexes: indexes)
    }

    mutating func readProperty(_ name: String, _ value: JSONValue, path: String) -> PropertyDescription? {
        if !Self.isSymbolic(name, allowingUnderscore: true) || name.hasPrefix("CDTIS") || Self.reservedProperties.contains(name) {
            issue(
                path,
                "a property name is letters, digits and _ starting with a letter, does not start with CDTIS, and is not "
                    + "id, revId, objectVersion, objectIdentifier or a Swift keyword")
        }
        guard let object = value.objectValue else {
            issue(path, "a property is an object with at least \"type\"")
            return nil
        }
        checkMembers(
            object, path,
            allowed: ["type", "optional", "default", "mimeType", "transformer", "destination", "inverse", "deleteRule", "renamedFrom"])
        guard let typeName = object["type"]?.stringValue, let type = PropertyType(rawValue: typeName) else {
            issue(path + ".type", "must be one of \(PropertyType.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        var optional = type.isRelationship
        if let flag = object["optional"] {
            if let bool = flag.boolValue { optional = bool } else { issue(path + ".optional", "must be true or false") }
        }
        var deleteRule = DeleteRule.nullify
        if let ruleValue = object["deleteRule"] {
            if !type.isRelationship {
                issue(path + ".deleteRule", "only relationships have a delete rule")
            } else if let rule = ruleValue.stringValue.flatMap(DeleteRule.init(rawValue:)) {
                deleteRule = rule
            } else {
                issue(path + ".deleteRule", "must be nullify, cascade or deny")
            }
        }
        let text = { (key: String) -> String? in object[key]?.stringValue }
        for key in ["mimeType", "transformer", "destination", "inverse", "renamedFrom"] where object[key] != nil && text(key) == nil {
            issue(path + "." + key, "must be a string")
        }
        if type.isRelationship {
            if text("destination") == nil { issue(path + ".destination", "a relationship names its destination entity") }
            if object["default"] != nil { issue(path + ".default", "relationships have no default") }
        } else {
            for key in ["destination", "inverse"] where object[key] != nil {
                issue(path + "." + key, "only relationships have a \(key)")
            }
        }
        if object["mimeType"] != nil, type != .binary, type != .xform {
            issue(path + ".mimeType", "only binary and xform attributes have a MIME type")
        }
        if let transformer = text("transformer") {
            if type != .xform {
                issue(path + ".transformer", "only xform attributes name a transformer")
            } else if !Self.isSymbolic(transformer) {
                issue(path + ".transformer", "a transformer name is letters and digits starting with a letter")
            }
        }
        if let defaultValue = object["default"], !type.isRelationship,
            let problem = AttributeDefaults.problem(with: defaultValue, for: type)
        {
            issue(path + ".default", problem)
        }
        return PropertyDescription(
            name: name, type: type, optional: optional, defaultValue: object["default"], mimeType: text("mimeType"),
            transformer: text("transformer"), destination: text("destination"), inverse: text("inverse"),
            deleteRule: deleteRule, renamedFrom: text("renamedFrom"))
    }

    mutating func checkRelationships(_ version: ModelVersion, path: String) {
        for entity in version.entities {
            for relation in entity.relationships {
                let here = path + ".entities.\(entity.name).properties.\(relation.name)"
                guard let destinationName = relation.destination else { continue }
                guard let destination = version.entity(named: destinationName) else {
                    issue(here + ".destination", "'\(destinationName)' is not an entity of this version")
                    continue
                }
                guard let inverseName = relation.inverse else { continue }
                guard let inverse = destination.property(named: inverseName), inverse.isRelationship else {
                    issue(here + ".inverse", "'\(inverseName)' is not a relationship of \(destinationName)")
                    continue
                }
                if inverse.destination != entity.name || inverse.inverse != relation.name {
                    issue(
                        here + ".inverse",
                        "\(destinationName).\(inverseName) must have destination \(entity.name) and inverse \(relation.name)")
                }
            }
        }
    }

    mutating func checkIndexNames(_ version: ModelVersion, path: String) {
        var seen: Set<String> = []
        for entity in version.entities {
            for index in entity.indexes where !seen.insert(index.name).inserted {
                issue(path + ".entities.\(entity.name).indexes.\(index.name)", "index names must be unique in the model")
            }
        }
    }

    mutating func checkMigration(from previous: ModelVersion, to version: ModelVersion, path: String) {
        for entity in version.entities {
            let old = previous.entity(named: entity.name)
            for property in entity.properties {
                let here = path + ".entities.\(entity.name).properties.\(property.name)"
                if let renamed = property.renamedFrom {
                    guard let oldProperty = old?.property(named: renamed) else {
                        issue(here + ".renamedFrom", "\(entity.name) had no property '\(renamed)' in version \(previous.version)")
                        continue
                    }
                    if oldProperty.type != property.type {
                        issue(here + ".renamedFrom", "a rename keeps the type (\(oldProperty.type.rawValue))")
                    }
                    continue
                }
                guard let old, old.property(named: property.name) == nil else { continue }
                if !property.isRelationship, !property.optional, property.defaultValue == nil {
                    issue(
                        here,
                        "an attribute added in version \(version.version) needs \"optional\": true or a \"default\" "
                            + "for the objects stored under version \(previous.version)")
                }
            }
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
