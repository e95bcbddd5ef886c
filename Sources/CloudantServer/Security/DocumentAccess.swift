internal import CloudantCore
internal import CloudantStore

/// Per-document access lists within a shared database: who, besides the database's admins, may see and change
/// each document.
///
/// A database opts in through its `_security` object, `"document_access": true` (the list lives in each
/// document's `access` member) or `"document_access": {"field": "NAME"}`. The list names users and roles
/// the way `_security` does: `"access": {"names": ["alice"], "roles": ["nurses"]}`. The member is an ordinary
/// one, not `_access`, so documents still replicate to CouchDB, which refuses unknown `_` members.
///
/// The rules, for a member who is not a database admin:
/// - a document is visible only while its *winning* revision's list names the user or one of their roles;
///   every revision, conflict, tombstone and attachment of it follows that one decision, so a user taken off
///   the list loses the old revisions too;
/// - a document that exists and is not visible cannot be written (so nobody can add themselves to a list
///   they are not on); one the user creates without a list gets `{"names": [user]}`; an update without a
///   list keeps the current one;
/// - design documents carry no list and stay with the database admins.
struct DocumentAccess: Sendable {
    /// The member holding the lists, when the database has them.
    let field: String?
    let user: UserContext
    /// Whether the user administers the database (and so sees every document).
    let isAdmin: Bool

    /// No per-document lists: databases without `document_access`.
    static func unrestricted(_ user: UserContext) -> DocumentAccess { DocumentAccess(field: nil, user: user, isAdmin: true) }

    /// Whether this user sees only the documents whose lists name them.
    var isRestricted: Bool { field != nil && !isAdmin }

    /// Whether `document`'s list names the user (always, when unrestricted).
    func allows(_ document: JSONObject) -> Bool {
        guard isRestricted, let field else { return true }
        guard let list = document[field]?.objectValue else { return false }
        if let name = user.name, Self.strings(list["names"]).contains(name) { return true }
        let roles = Self.strings(list["roles"])
        return user.roles.contains(where: roles.contains)
    }

    /// The winning revision of `id` (a tombstone included), or `nil` when there is no such document.
    static func winner(of id: String, in store: DocumentStore) async throws -> JSONObject? {
        let found = try await store.allDocs(AllDocsOptions(keys: [id]))
        guard let row = found.rows.first, let rev = row["value"]?["rev"]?.stringValue else { return nil }
        return try? await store.document(id: id, options: ReadOptions(rev: rev))
    }

    /// Whether the user may see document `id`: its winner's list names them. A missing document is not
    /// visible either, so "not visible" and "missing" get the same answer.
    func allowsDocument(id: String, in store: DocumentStore) async throws -> Bool {
        guard isRestricted else { return true }
        if DocumentID.isLocal(id) { return true }
        guard let winner = try await Self.winner(of: id, in: store) else { return false }
        return allows(winner)
    }

    /// Throws CouchDB's `404 not_found` unless document `id` is visible: a hidden document is answered as if
    /// it did not exist.
    func requireVisible(id: String, in store: DocumentStore) async throws {
        guard try await allowsDocument(id: id, in: store) else {
            throw HTTPFailure.notFound("missing")
        }
    }

    /// A `_find` selector that matches only what `selector` matches among visible documents.
    func restricting(_ selector: JSONValue) -> JSONValue {
        guard isRestricted, let field else { return selector }
        var anyOf: [JSONValue] = []
        if let name = user.name {
            anyOf.append(["\(field).names": ["$elemMatch": ["$eq": .string(name)]]])
        }
        if !user.roles.isEmpty {
            anyOf.append(["\(field).roles": ["$elemMatch": ["$in": .array(user.roles.map(JSONValue.string))]]])
        }
        if anyOf.isEmpty { anyOf.append(["\(field).names": ["$elemMatch": ["$eq": "\u{0}"]]]) }
        return ["$and": [selector, ["$or": .array(anyOf)]]]
    }

    /// The document a write stores, once the rules allow it: the list validated, carried over from the
    /// current winner when the write names none (tombstones too, so a deletion stays visible to the people
    /// it concerns), or set to the writer for a new document.
    /// - Throws: ``HTTPFailure`` `403 forbidden` for a document that exists and is not visible, `400
    ///   bad_request` for a malformed list.
    ///
    /// A replicated revision (`new_edits=false`) keeps the revision id its sender made, so its content must
    /// not change on the way: a restricted user's replicated document must carry its list (a tombstone alone
    /// gets the current list, so the deletion still reaches the people it concerns).
    func prepareWrite(_ document: IncomingDocument, in store: DocumentStore, replicated: Bool = false) async throws
        -> IncomingDocument
    {
        guard let field, !(document.id.map { DocumentID.isLocal($0) || DocumentID.isDesign($0) } ?? false) else {
            return document
        }
        if let list = document.body[field] { try Self.validate(list, field: field) }
        let current = try await document.id.asyncMap { try await Self.winner(of: $0, in: store) } ?? nil
        if let current, !allows(current) {
            throw HTTPFailure.forbidden("You are not on this document's access list.")
        }
        guard document.body[field] == nil else { return document }
        if replicated, !document.deleted, isRestricted {
            throw HTTPFailure.forbidden("A replicated document must carry its \(field) list.")
        }
        var prepared = document
        if let currentList = current?[field] {
            prepared.body[field] = currentList
        } else if !isAdmin, let name = user.name {
            prepared.body[field] = ["names": [.string(name)], "roles": []]
        }
        return prepared
    }

    /// Checks a list's shape: an object whose `names` and `roles` (each optional) are lists of strings.
    static func validate(_ list: JSONValue, field: String) throws {
        guard let object = list.objectValue else {
            throw HTTPFailure.badRequest("\(field) must be an object with \"names\" and \"roles\" lists")
        }
        for key in ["names", "roles"] {
            guard let value = object[key] else { continue }
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw HTTPFailure.badRequest("\(field).\(key) must be a list of strings")
            }
        }
    }

    /// The same for a JSON document (`_bulk_docs` entries).
    func prepareWrite(_ document: JSONObject, in store: DocumentStore, replicated: Bool = false) async throws
        -> JSONObject
    {
        // A malformed entry goes on unchanged: the store answers it with its own per-document error.
        guard field != nil, let incoming = try? IncomingDocument(document) else { return document }
        let prepared = try await prepareWrite(incoming, in: store, replicated: replicated)
        var result = document
        for (key, value) in prepared.body.members where document[key] == nil { result[key] = value }
        return result
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        (value?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

extension CouchEndpoint {
    /// How documents of `store` are restricted for `user` when reading: a server admin sees everything, so the
    /// security object is not read again on that hot path.
    func readAccess(of store: DocumentStore, for user: UserContext) async throws -> DocumentAccess {
        if user.isServerAdmin { return .unrestricted(user) }
        return try await documentAccess(of: store, for: user)
    }

    /// How documents of `store` are restricted for `user`: by their access lists when the database turns
    /// them on and the user is not one of its admins. Writes use this one even for admins: a list is carried
    /// over into the new revision (a tombstone included) whoever writes it.
    func documentAccess(of store: DocumentStore, for user: UserContext) async throws -> DocumentAccess {
        let security = try await securityObject(of: store)
        return DocumentAccess(field: security.documentAccessField, user: user, isAdmin: security.isAdmin(user))
    }
}
