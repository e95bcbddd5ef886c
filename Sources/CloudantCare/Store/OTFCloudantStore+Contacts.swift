public import CloudantCareModule
internal import CloudantCore
public import CloudantOnly
internal import CloudantStore
public import Dispatch

/// CareKit's names for contacts on the drop-in store (`fetchContacts`, `addContact`, `updateContacts`, …), singular
/// and plural, async and with callbacks, as the original's `OCKStoreProtocol` conformance offered them. Each is
/// one line over the generic care calls; results carry `OTFCloudantError` (CareKit's
/// `OCKStoreError` has the same cases).
///
/// ```swift
/// let contacts = try await store.fetchContacts(query: CareQuery(for: today, calendar: calendar))
/// store.addContact(contact) { result in … }
/// ```
extension OTFCloudantStore {
    // MARK: Async

    /// The contacts that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchContacts(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [Contact] {
        try await fetchCare(Contact.self, query: query)
    }

    /// The current contact with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchContact(withID id: String) async throws(OTFCloudantError) -> Contact {
        try await fetchCare(Contact.self, withID: id)
    }

    /// Adds contacts, in one transaction.
    @discardableResult
    public func addContacts(_ contacts: [Contact]) async throws(OTFCloudantError) -> [Contact] { try await addCare(contacts) }

    /// Adds one contact.
    @discardableResult
    public func addContact(_ contact: Contact) async throws(OTFCloudantError) -> Contact { try await one(addCare([contact])) }

    /// Adds a new version of each contact, in one transaction.
    @discardableResult
    public func updateContacts(_ contacts: [Contact]) async throws(OTFCloudantError) -> [Contact] { try await updateCare(contacts) }

    /// Adds a new version of one contact.
    @discardableResult
    public func updateContact(_ contact: Contact) async throws(OTFCloudantError) -> Contact { try await one(updateCare([contact])) }

    /// Deletes contacts (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteContacts(_ contacts: [Contact]) async throws(OTFCloudantError) -> [Contact] { try await deleteCare(contacts) }

    /// Deletes one contact.
    @discardableResult
    public func deleteContact(_ contact: Contact) async throws(OTFCloudantError) -> Contact { try await one(deleteCare([contact])) }

    // MARK: Callbacks

    /// The contacts that match `query`; see ``fetchContacts(query:)``.
    public func fetchContacts(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Contact], OTFCloudantError>) -> Void
    ) {
        care(.fetch, on: callbackQueue, to: completion) { try await $0.fetch(Contact.self, query: query) }
    }

    /// The current contact with this id; see ``fetchContact(withID:)``.
    public func fetchContact(
        withID id: String, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<Contact, OTFCloudantError>) -> Void
    ) {
        deliver(.fetch, on: callbackQueue, to: completion) { try await self.fetchContact(withID: id) }
    }

    /// Adds contacts; see ``addContacts(_:)``.
    public func addContacts(
        _ contacts: [Contact], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Contact], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.add, on: callbackQueue, to: completion) { try await $0.add(contacts) }
    }

    /// Adds one contact; see ``addContact(_:)``.
    public func addContact(
        _ contact: Contact, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Contact, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.add, on: callbackQueue, to: completion) { try await self.addContact(contact) }
    }

    /// Updates contacts; see ``updateContacts(_:)``.
    public func updateContacts(
        _ contacts: [Contact], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Contact], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.update, on: callbackQueue, to: completion) { try await $0.update(contacts) }
    }

    /// Updates one contact; see ``updateContact(_:)``.
    public func updateContact(
        _ contact: Contact, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Contact, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.update, on: callbackQueue, to: completion) { try await self.updateContact(contact) }
    }

    /// Deletes contacts; see ``deleteContacts(_:)``.
    public func deleteContacts(
        _ contacts: [Contact], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Contact], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.delete, on: callbackQueue, to: completion) { try await $0.delete(contacts) }
    }

    /// Deletes one contact; see ``deleteContact(_:)``.
    public func deleteContact(
        _ contact: Contact, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Contact, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.delete, on: callbackQueue, to: completion) { try await self.deleteContact(contact) }
    }
}
