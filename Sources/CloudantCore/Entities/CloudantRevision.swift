/// An entity that carries the CouchDB revision it was read at, so an update or delete can name it.
///
/// ```swift
/// struct Note: Codable, Sendable, Identifiable, CloudantRevision {
///     var id: String
///     var text: String
///     var revId: String?
/// }
/// ```
/// The store keeps the revision as the document's `_rev`, never inside the body (the original stored a
/// stale copy in the body).
public protocol CloudantRevision {
    /// The revision this value was read at; `nil` for a value never stored.
    var revId: String? { get set }
}

/// What the typed entity API stores: a `Codable`, `Sendable`, identifiable value that carries its revision.
public typealias CloudantEntity = Codable & Identifiable & CloudantRevision & Sendable
