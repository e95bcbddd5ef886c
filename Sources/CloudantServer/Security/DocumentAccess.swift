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
///   the list loses the old revisions too; a `_local/` document follows its own list the same way;
/// - a hidden document answers every read exactly as a missing one, and every figure derived from documents
///   (counts, `pending`, `total_rows`, `_find` statistics) counts only visible ones; the store judges visibility
///   before any predicate the user sent runs (``visibility``);
/// - a document that exists and is not visible cannot be written: the write is answered as a conflict, as the
///   same write of a missing document with a revision is, so nobody learns more than that the id is taken
///   (a replicated revision, which never conflicts, is refused `403`);
/// - nobody writes a document whose list does not name them or one of their roles (so nobody adds
///   themselves to a list, or gives a document away); one the user creates without a list gets
///   `{"names": [user]}`; an update without a list keeps the current one;
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

    /// What decides whether `id` is visible: its winning revision, or for a `_local/` id the local document;
    /// `nil` when there is none.
    static func current(of id: String, in store: DocumentStore) async throws -> JSONObject? {
        guard DocumentID.isLocal(id) else { return try await winner(of: id, in: store) }
        do {
            return try await store.localDocument(id: id)
        } catch let error as CloudantError where error.code == .notFound {
            return nil
        }
    }

    /// Whether the user may see document `id`: its winner's list names them. A missing document is not
    /// visible either, so "not visible" and "missing" get the same answer.
    func allowsDocument(id: String, in store: DocumentStore) async throws -> Bool {
        guard isRestricted else { return true }
        guard let current = try await Self.current(of: id, in: store) else { return false }
        return allows(current)
    }

    /// Throws CouchDB's `404 not_found` unless document `id` is visible: a hidden document is answered as if
    /// it did not exist.
    func requireVisible(id: String, in store: DocumentStore) async throws {
        guard try await allowsDocument(id: id, in: store) else {
            throw HTTPFailure.notFound("missing")
        }
    }

    /// The documents the user may see, for the store to apply before anything the user asked for (a `_find`
    /// selector, a `_changes` filter, a count): `nil` when the user is not restricted.
    var visibility: DocumentVisibility? {
        guard isRestricted else { return nil }
        let access = self
        return DocumentVisibility { document in
            guard let id = document["_id"]?.stringValue, !DocumentID.isDesign(id) else { return false }
            return access.allows(document)
        }
    }

    /// The document a write stores, once the rules allow it: the list validated, carried over from the
    /// current winner when the write names none (tombstones too, so a deletion stays visible to the people
    /// it concerns), or set to the writer for a new document. `_local/` documents follow the same rules.
    /// - Throws: ``HTTPFailure`` `409 conflict` for a document that exists and is not visible (what the same
    ///   write of a missing document with a revision gets), `403 forbidden` for a replicated revision of one and
    ///   for a document whose list would not name the writer, `400 bad_request` for a malformed list.
    ///
    /// A replicated revision (`new_edits=false`) keeps the revision id its sender made, so its content must
    /// not change on the way: a restricted user's replicated document must carry its list (a tombstone alone
    /// gets the current list, so the deletion still reaches the people it concerns).
    func prepareWrite(_ document: IncomingDocument, in store: DocumentStore, replicated: Bool = false) async throws
        -> IncomingDocument
    {
        guard let field, !(document.id.map(DocumentID.isDesign) ?? false) else { return document }
        let isLocal = document.id.map(DocumentID.isLocal) ?? false
        if let list = document.body[field] { try Self.validate(list, field: field) }
        let current = try await document.id.asyncMap { try await Self.current(of: $0, in: store) } ?? nil
        if let current, !allows(current) {
            if replicated, !isLocal { throw HTTPFailure.forbidden("You are not on this document's access list.") }
            throw Self.conflict
        }
        var prepared = document
        if document.body[field] == nil {
            if replicated, !isLocal, !document.deleted, isRestricted {
                throw HTTPFailure.forbidden("A replicated document must carry its \(field) list.")
            }
            if let currentList = current?[field] {
                prepared.body[field] = currentList
            } else if !isAdmin, let name = user.name {
                prepared.body[field] = ["names": [.string(name)], "roles": []]
            }
        }
        if isRestricted, !allows(prepared.body) {
            throw HTTPFailure.forbidden(
                "The document's \(field) list must name you or one of your roles: you could not see it once written.")
        }
        return prepared
    }

    /// CouchDB's answer to an update of a revision the document does not have.
    static let conflict = HTTPFailure(status: 409, error: "conflict", reason: "Document update conflict.")

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
