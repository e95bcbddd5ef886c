/// An entity type that knows the kind it is stored as, so a store whose registry lacks the type's plugin
/// still names its documents right when it takes unregistered types (the drop-in `OTFCloudantStore` does).
///
/// The Care and Health modules' types conform with the kinds their plugins register; a registered kind
/// always wins over this one.
///
/// ```swift
/// extension Medication: SelfDescribingEntity {
///     static var defaultEntityKind: AnyEntityKind { AnyEntityKind(EntityKind(Medication.self, name: "medication")) }
/// }
/// ```
public protocol SelfDescribingEntity {
    /// The kind the type is stored as when no plugin registered it.
    static var defaultEntityKind: AnyEntityKind { get }
}

extension AnyEntityKind {
    /// Erases `kind`'s entity type, for ``SelfDescribingEntity/defaultEntityKind``.
    public init<Entity>(_ kind: EntityKind<Entity>) {
        self.init(kind, pluginName: nil)
    }
}
