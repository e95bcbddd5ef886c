internal import Foundation

/// Bounds on matching a selector against documents: how much work one `$regex` evaluation may do, and a
/// signal that stops the work when whoever asked for it has gone away.
///
/// ```swift
/// let signal = CancellationSignal()
/// let limits = MatchLimits(regexStepLimit: 1_000_000, cancellation: signal)
/// let matched = try selector.matches(document, limits: limits)   // throws past the limit or once cancelled
/// ```
///
/// A backtracking pattern such as `(a+)+$` takes time exponential in the length of the string it fails
/// to match; the limit turns that into a clear error instead of a thread that never comes back.
///
/// ``indexRowLimit`` is CouchDB's `query_server_config/query_limit` as Mango meets it: the view or
/// `_all_docs` scan behind a `_find` reads at most that many index rows, and the query answers with the
/// matches among them (a page of fewer documents, its bookmark where the scan stopped).
public struct MatchLimits: Sendable, Hashable {
    /// How many steps of the regular-expression engine one `$regex` evaluation of one string may take, at
    /// most ``maximumRegexStepLimit``: PCRE's match limit, which counts the engine's backtracking points.
    ///
    /// The default, 10 000 000, is PCRE's default match limit — the one CouchDB's own `$regex` (Erlang's
    /// `re`, which is PCRE) runs under — and takes well under a second here.
    public var regexStepLimit: Int
    /// Checked before each value is matched: once cancelled, matching throws `CancellationError`. One
    /// value's match is bounded by ``regexStepLimit``.
    public var cancellation: CancellationSignal?
    /// The most index rows one `_find` reads from a JSON index or `_all_docs` (nil: no limit). Text-index
    /// queries are not held to it, as CouchDB's search queries are not.
    public var indexRowLimit: Int?

    /// The default limit, PCRE's default match limit.
    public static let defaultRegexStepLimit = 10_000_000

    /// The largest step limit that is kept; a larger ``regexStepLimit`` counts as this one.
    ///
    /// Twice PCRE's default: one value's match may then hold a query's thread for about a second, and no
    /// longer, whatever the server was started with.
    public static let maximumRegexStepLimit = 20_000_000

    /// The default bounds: ``defaultRegexStepLimit``, no cancellation and no index row limit.
    public static let `default` = MatchLimits()

    /// Creates bounds.
    public init(
        regexStepLimit: Int = MatchLimits.defaultRegexStepLimit, cancellation: CancellationSignal? = nil, indexRowLimit: Int? = nil
    ) {
        self.regexStepLimit = regexStepLimit
        self.cancellation = cancellation
        self.indexRowLimit = indexRowLimit
    }

    /// The step limit in force: ``regexStepLimit`` held to between one step and ``maximumRegexStepLimit``.
    public var effectiveRegexStepLimit: Int { min(max(1, regexStepLimit), Self.maximumRegexStepLimit) }
}

/// A flag that work running outside any task (on a database queue, inside a C library's callback) checks
/// to learn that the task that asked for it was cancelled.
///
/// ```swift
/// let signal = CancellationSignal()
/// try await withTaskCancellationHandler {
///     try await store.find(request, limits: MatchLimits(cancellation: signal))
/// } onCancel: {
///     signal.cancel()
/// }
/// ```
public final class CancellationSignal: @unchecked Sendable, Hashable {
    // `lock` protects `cancelled`.
    private let lock = NSLock()
    private var cancelled = false

    /// Creates a signal that is not cancelled.
    public init() {}

    /// Marks the work cancelled; every later ``isCancelled`` is true.
    public func cancel() { lock.withLock { cancelled = true } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// - Throws: `CancellationError` once ``cancel()`` was called.
    public func check() throws {
        if isCancelled { throw CancellationError() }
    }

    public static func == (lhs: CancellationSignal, rhs: CancellationSignal) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
