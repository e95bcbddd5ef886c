/// Which source a ``RepositoryProxy`` asks first for each action, which one answers when that fails, and
/// whether writes go to both (Evocation's `Strategy`).
///
/// ```swift
/// let localFirst = RepositoryStrategy.Rule(target: .local, fallback: .remote, synchronize: true)
/// let remoteFirst = RepositoryStrategy.Rule(target: .remote, fallback: .local, synchronize: true)
/// let strategy = RepositoryStrategy(localFirst).with(remoteFirst, for: [.find, .findOne])
/// ```
///
/// What each rule means:
/// - **Reads** ask the target; when it fails in a way the other source can make up for (unreachable,
///   broken; see `CloudantError.allowsFallback`), or a `findOne` target has no such entity, the
///   fallback answers and the result's origin says so. With `synchronize`, what the remote returned is
///   copied into the store (with its revision history, by replication), so the next offline read has it.
/// - **Writes** go to the target. With `synchronize`, they go to the other source too: a local write is
///   queued for the remote in the same transaction and sent at once; a remote write is copied into the
///   store with the remote's revision. When the remote cannot be reached, a write that a rule lets reach
///   the store (local target, or local fallback) is kept there and queued (``OfflineWriteQueue``); a write
///   whose rule names only the remote fails.
/// - A refusal (a stale revision, an invalid entity) never falls back: the other source would refuse it
///   too, or accept what the first one knew to be wrong.
public struct RepositoryStrategy: Sendable, Hashable {
    /// The actions a strategy has a rule for (Evocation's, with `storeOrUpdate`).
    public enum Action: String, Sendable, Hashable, CaseIterable, Codable {
        /// ``Repository/find(_:)`` and ``Repository/findOne(_:)``.
        case find
        /// ``Repository/findOne(id:)``.
        case findOne
        /// ``Repository/store(_:)``.
        case store
        /// ``Repository/update(_:)``.
        case update
        /// ``Repository/remove(_:)``.
        case remove
        /// ``Repository/storeOrUpdate(_:)``.
        case storeOrUpdate

        /// Whether the action writes.
        public var isWrite: Bool { self != .find && self != .findOne }
    }

    /// One action's behaviour.
    public struct Rule: Sendable, Hashable {
        /// The source asked first.
        public var target: RepositorySource
        /// The source that answers when the target fails; `nil` for none.
        public var fallback: RepositorySource?
        /// Whether writes go to both sources (and remote reads are copied into the store).
        public var synchronize: Bool

        /// Creates a rule; a fallback equal to the target means none.
        public init(target: RepositorySource, fallback: RepositorySource? = nil, synchronize: Bool = false) {
            self.target = target
            self.fallback = fallback == target ? nil : fallback
            self.synchronize = synchronize
        }

        /// The store first, the remote when the store fails, every write sent to the remote (queued while
        /// it cannot be reached).
        public static let localFirst = Rule(target: .local, fallback: .remote, synchronize: true)
        /// The remote first, the store when the remote cannot be reached (writes queued), what the remote
        /// answers copied into the store.
        public static let remoteFirst = Rule(target: .remote, fallback: .local, synchronize: true)
        /// The store only.
        public static let localOnly = Rule(target: .local)
        /// The remote only: nothing is kept on the device, and a write fails while the remote is away.
        public static let remoteOnly = Rule(target: .remote)
    }

    /// The rule of each action.
    public var rules: [Action: Rule]

    /// One rule for every action.
    public init(_ rule: Rule) {
        rules = Dictionary(uniqueKeysWithValues: Action.allCases.map { ($0, rule) })
    }

    /// A rule per action; actions not named follow `otherwise`.
    public init(rules: [Action: Rule], otherwise: Rule = .localFirst) {
        self.init(otherwise)
        self.rules.merge(rules) { _, named in named }
    }

    /// The same strategy with `rule` for `actions`.
    public func with(_ rule: Rule, for actions: [Action]) -> RepositoryStrategy {
        var copy = self
        for action in actions { copy.rules[action] = rule }
        return copy
    }

    /// The rule of `action`.
    public func rule(for action: Action) -> Rule {
        rules[action] ?? .localFirst
    }

    /// The default, offline-first: reads and writes go to the store first, so the app works the same
    /// with or without a network; every write is sent to the remote, queued while it is away; reads fall
    /// back to the remote only when the store fails or does not have the entity.
    public static let offlineFirst = RepositoryStrategy(.localFirst)

    /// Online-first: the remote answers whenever it can (its answers are kept on the device), and the
    /// store answers, and keeps the writes, while it cannot.
    public static let remoteFirst = RepositoryStrategy(.remoteFirst)
}
