/// An entity that converts itself to and from a document body directly, so the store skips Foundation's
/// `JSONEncoder`/`JSONDecoder` for it.
///
/// The store's typed API (`add`, `update`, `get`, the query builder's `get(_:)`) uses these when an entity
/// conforms and `Codable` otherwise. Types generated from an object model conform: their documents follow
/// the Core Data bridge's layout, with `CDTISMeta_` members Foundation's coders would have no way to write.
///
/// ```swift
/// extension Note: JSONObjectRepresentable {
///     init(jsonObject body: JSONObject) throws {
///         id = body["id"]?.stringValue ?? ""
///         text = body["text"]?.stringValue ?? ""
///         revId = body["revId"]?.stringValue
///     }
///     func jsonObject() throws -> JSONObject { ["text": .string(text)] }
/// }
/// ```
public protocol JSONObjectRepresentable {
    /// Reads a stored body. The store passes it without `_` members except `_attachments`, with `id` (from
    /// `_id`) and `revId` (from `_rev`) added.
    /// - Throws: `CloudantError` naming the member that does not fit.
    init(jsonObject body: JSONObject) throws

    /// The body to store, without `_id`, `_rev` or `revId` (the store adds those).
    /// - Throws: `CloudantError` naming the member that cannot be written.
    func jsonObject() throws -> JSONObject
}
