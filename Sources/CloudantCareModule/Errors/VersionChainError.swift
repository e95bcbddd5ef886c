public import CloudantCore
public import Foundation

/// What is wrong with the version links of an imported history: the typed context of a
/// `CloudantError.Code.brokenVersionChain` error (its `CloudantError.underlying`).
///
/// ```swift
/// do {
///     try await care.importVersions(history)
/// } catch let error as CloudantError {
///     if case .missingPrevious(let previous)? = error.versionChainError?.problem {
///         print("\(error.context.documentID ?? "?"): export version \(previous) too")
///     }
/// }
/// ```
public struct VersionChainError: CategorizedError, Sendable, Hashable, CustomStringConvertible {
    /// Which rule the links break.
    public enum Problem: Sendable, Hashable {
        /// The version names `previous` as its previous version, but that version is neither in the batch nor
        /// stored for the same object.
        case missingPrevious(UUID)
        /// The version names `previous` as its previous version, but `previous` is a version of another object.
        case previousOfAnotherObject(UUID)
        /// Following previous versions from this version comes back to it.
        case cycle
        /// This version and `other` both continue `tail`, so the object would have two current versions.
        case fork(tail: UUID, other: UUID)
        /// The version is a second first version (no previous version) of an object whose history has one.
        case secondFirstVersion(other: UUID)
    }

    /// The object's id (shared by all its versions).
    public var id: String
    /// The version whose links are wrong.
    public var uuid: UUID
    /// What is wrong.
    public var problem: Problem

    /// Creates the context of a broken chain.
    public init(id: String, uuid: UUID, problem: Problem) {
        self.id = id
        self.uuid = uuid
        self.problem = problem
    }

    /// Always `ErrorCategory.invalidInput`: the imported history is what needs fixing.
    public var category: ErrorCategory { .invalidInput }

    /// The object id, the version uuid and the broken rule.
    public var description: String { "VersionChainError(id: \(id), uuid: \(uuid.uuidString), \(problem))" }
}

/// Errors about a CareKit history's version chain.
extension CloudantError {
    /// The version and link a `CloudantError.Code.brokenVersionChain` error is about.
    public var versionChainError: VersionChainError? { underlying as? VersionChainError }
}
