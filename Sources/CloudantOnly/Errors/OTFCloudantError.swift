public import CloudantBase
public import Foundation

/// OTFCloudantStore's error: one case per kind of operation that failed, each with a reason, so code written
/// for the original can `switch` over it unchanged.
///
/// The drop-in API (`OTFCloudantStore`, `OTFCloudantQuery`, the CareKit-named methods) reports failures
/// with it. Each case is made from one of our typed errors by `init(_:during:)`: an input error becomes
/// `invalidValue(reason:)` whatever the operation, an answer that did not come in time `timedOut(reason:)`,
/// a peer that could not be reached or refused `remoteSynchronizationFailed(reason:)`, and anything else the
/// case of the operation that failed (`addFailed(reason:)` for an add, and so on). The reason is the
/// typed error's description: what failed, where, and what to do; never a document body.
///
/// ```swift
/// store.add([contact]) { result in
///     switch result {
///     case .success(let saved): print(saved[0].revId ?? "")
///     case .failure(.addFailed(let reason)): print("not saved:", reason)   // the id exists, the disk is full
///     case .failure(.invalidValue(let reason)): print("fix the input:", reason)
///     case .failure(let error): print(error.localizedDescription)
///     }
/// }
/// ```
public enum OTFCloudantError: LocalizedError, CategorizedError, Sendable, Hashable {
    /// Occurs when a fetch fails.
    case fetchFailed(reason: String)
    /// Occurs when adding an entity fails.
    case addFailed(reason: String)
    /// Occurs when an update to an existing entity fails.
    case updateFailed(reason: String)
    /// Occurs when deleting an existing entity fails.
    case deleteFailed(reason: String)
    /// Occurs when synchronization with a remote server fails.
    case remoteSynchronizationFailed(reason: String)
    /// Occurs when an invalid value is provided.
    case invalidValue(reason: String)
    /// Occurs when an asynchronous action takes too long.
    case timedOut(reason: String)

    /// The kind of operation a failure happened in; it picks the case of failures that are neither bad input,
    /// nor a timeout, nor an unreachable peer.
    public enum Operation: Sendable, Hashable {
        /// Reading entities, documents or query results.
        case fetch
        /// Adding entities.
        case add
        /// Updating entities.
        case update
        /// Deleting entities.
        case delete
        /// Synchronising with a peer or a remote server.
        case synchronize
    }

    /// Translates one of our errors (any `CategorizedError`; `CloudantError` is the usual one) into the
    /// original's case for `operation`.
    ///
    /// | the error's category | case |
    /// |---|---|
    /// | `ErrorCategory.invalidInput`, `ErrorCategory.tooLarge` | ``invalidValue(reason:)`` |
    /// | `ErrorCategory.timedOut` | ``timedOut(reason:)`` |
    /// | `ErrorCategory.unavailable`, `ErrorCategory.unauthorized`, `ErrorCategory.forbidden` during a sync | ``remoteSynchronizationFailed(reason:)`` |
    /// | anything else | the operation's case: ``fetchFailed(reason:)``, ``addFailed(reason:)``, ``updateFailed(reason:)``, ``deleteFailed(reason:)``, ``remoteSynchronizationFailed(reason:)`` |
    ///
    /// An `OTFCloudantError` passes through unchanged; an error without a category counts as `ErrorCategory.internal`.
    public init(_ error: any Error, during operation: Operation) {
        if let same = error as? OTFCloudantError {
            self = same
            return
        }
        let reason = String(describing: error)
        let category = (error as? any CategorizedError)?.category ?? .internal
        switch (category, operation) {
        case (.invalidInput, _), (.tooLarge, _): self = .invalidValue(reason: reason)
        case (.timedOut, _): self = .timedOut(reason: reason)
        case (.unavailable, .synchronize), (.unauthorized, .synchronize), (.forbidden, .synchronize):
            self = .remoteSynchronizationFailed(reason: reason)
        case (_, .fetch): self = .fetchFailed(reason: reason)
        case (_, .add): self = .addFailed(reason: reason)
        case (_, .update): self = .updateFailed(reason: reason)
        case (_, .delete): self = .deleteFailed(reason: reason)
        case (_, .synchronize): self = .remoteSynchronizationFailed(reason: reason)
        }
    }

    /// The reason the case carries.
    public var reason: String {
        switch self {
        case .fetchFailed(let reason), .addFailed(let reason), .updateFailed(let reason), .deleteFailed(let reason),
            .remoteSynchronizationFailed(let reason), .invalidValue(let reason), .timedOut(let reason):
            reason
        }
    }

    /// The original's wording: "Failed to fetch: <reason>" and so on.
    public var errorDescription: String? {
        switch self {
        case .fetchFailed(let reason): "Failed to fetch: \(reason)"
        case .addFailed(let reason): "Failed to add: \(reason)"
        case .updateFailed(let reason): "Failed to update: \(reason)"
        case .deleteFailed(let reason): "Failed to delete: \(reason)"
        case .remoteSynchronizationFailed(let reason): "Synchronization with remote server failed: \(reason)"
        case .invalidValue(let reason): "Invalid value: \(reason)"
        case .timedOut(let reason): "Timed out: \(reason)"
        }
    }

    /// The category an edge answers the error with (the HTTP status, the CLI exit status).
    public var category: ErrorCategory {
        switch self {
        case .invalidValue: .invalidInput
        case .timedOut: .timedOut
        case .remoteSynchronizationFailed: .unavailable
        case .fetchFailed, .addFailed, .updateFailed, .deleteFailed: .internal
        }
    }
}
