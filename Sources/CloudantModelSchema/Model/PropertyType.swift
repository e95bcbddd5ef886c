/// The type of a property, by the names CDTDatastore's Core Data bridge writes into the `CDTISMetaData`
/// document (`typeName`) and this package's model files use.
///
/// | name | Swift type | stored as |
/// |---|---|---|
/// | `utf8` | `String` | a string |
/// | `bool` | `Bool` | a number, 0 for false |
/// | `date1970` | `Date` | seconds since 1970-01-01 00:00 GMT, a number |
/// | `int16`, `int32`, `int64` | `Int16`, `Int32`, `Int64` | an integer |
/// | `double` | `Double` | a number, and its IEEE 754 image in `CDTISMeta_<name>.ieee754_double` |
/// | `float` | `Float` | a number, and its IEEE 754 image in `CDTISMeta_<name>.ieee754_single` |
/// | `decimal` | `Decimal` | a string, and the `NSDecimal` image in `CDTISMeta_<name>.nsdecimal` |
/// | `binary` | `Data` | base64, with `CDTISMeta_<name>.mime-type` |
/// | `xform` | ``TransformableValue`` | base64, with the MIME type and transformer name in `CDTISMeta_<name>` |
/// | `id` | `String` | a Core Data object URI |
/// | `relation-to-one` | `ToOne<Destination>` | a document id (`""` for none) |
/// | `relation-to-many` | `ToMany<Destination>` | an array of document ids |
public enum PropertyType: String, Sendable, Hashable, CaseIterable {
    /// A UTF-8 string.
    case utf8
    /// A boolean, stored as a number (0 is false, anything else true).
    case bool
    /// A date, stored as seconds since midnight 1970-01-01 GMT.
    case date1970
    /// A 16-bit integer.
    case int16
    /// A 32-bit integer.
    case int32
    /// A 64-bit integer.
    case int64
    /// An IEEE 754 double, restored bit-exactly from its image.
    case double
    /// An IEEE 754 single, restored bit-exactly from its image.
    case float
    /// A decimal number (Foundation's `Decimal`, Apple's `NSDecimal`), stored as its text.
    case decimal
    /// Opaque bytes with a MIME type.
    case binary
    /// Bytes a named transformer turns into an application value, with a MIME type.
    case xform
    /// A Core Data object id URI (`x-coredata://…`).
    case id
    /// A relationship to at most one object.
    case relationToOne = "relation-to-one"
    /// A relationship to any number of objects.
    case relationToMany = "relation-to-many"

    /// Whether this is a relationship rather than an attribute.
    public var isRelationship: Bool { self == .relationToOne || self == .relationToMany }
}

/// What deleting an object does to the objects a relationship reaches (Core Data's delete rules).
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    /// The related objects stay; their inverse relationship stops naming the deleted object.
    case nullify
    /// The related objects are deleted too, with their own rules, in the same transaction.
    case cascade
    /// The delete is refused while the relationship names any object that is not deleted with it.
    case deny
}
