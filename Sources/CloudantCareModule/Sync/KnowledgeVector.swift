public import Foundation

/// A vector clock over store processes (CareKit's `OCKRevisionRecord.KnowledgeVector`), with the partial
/// order spelled out instead of hidden behind `Comparable`.
///
/// A missing process reads as 0, and equality ignores zero entries, so `{x: 0}` equals `{}`.
///
/// ```swift
/// var phone = KnowledgeVector([phoneID: 1])
/// phone.increment(phoneID)
/// let watch = KnowledgeVector([watchID: 3])
/// phone.isConcurrent(with: watch)          // true
/// phone.merged(with: watch)                // {phone: 2, watch: 3}
/// ```
public struct KnowledgeVector: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The clock of every process this vector knows about (entries of 0 are dropped).
    public private(set) var processes: [UUID: Int]

    /// Creates a vector; zero entries are dropped.
    public init(_ processes: [UUID: Int] = [:]) {
        self.processes = processes.filter { $0.value != 0 }
    }

    /// The clock of `process`; 0 when unknown.
    public func clock(for process: UUID) -> Int { processes[process] ?? 0 }

    /// Advances `process`'s clock by one.
    public mutating func increment(_ process: UUID) { processes[process, default: 0] += 1 }

    /// Takes, for every process, the larger clock of the two vectors.
    public mutating func merge(with other: KnowledgeVector) {
        for (process, clock) in other.processes where clock > self.clock(for: process) {
            processes[process] = clock
        }
    }

    /// The per-process maximum of both vectors (a join: idempotent, commutative, associative).
    public func merged(with other: KnowledgeVector) -> KnowledgeVector {
        var copy = self
        copy.merge(with: other)
        return copy
    }

    /// Whether every clock is at most `other`'s and one is smaller: this vector happened before `other`.
    public func happened(before other: KnowledgeVector) -> Bool {
        let keys = Set(processes.keys).union(other.processes.keys)
        return keys.allSatisfy { clock(for: $0) <= other.clock(for: $0) } && self != other
    }

    /// Whether `other` happened before this vector or equals it: this vector knows everything `other` knows.
    public func dominates(_ other: KnowledgeVector) -> Bool {
        other.processes.allSatisfy { clock(for: $0.key) >= $0.value }
    }

    /// Whether neither vector happened before the other and they differ.
    public func isConcurrent(with other: KnowledgeVector) -> Bool {
        !dominates(other) && !other.dominates(self)
    }

    /// Whether a version stamped with this vector is news to someone who knows `known`: some process's clock
    /// here is ahead of `known`'s (missing = 0). CareKit's own test missed stamps with processes `known` lacks.
    public func hasChanges(since known: KnowledgeVector) -> Bool {
        processes.contains { $0.value > known.clock(for: $0.key) }
    }

    /// `{uuid: clock, …}` in uuid order.
    public var description: String {
        "{" + processes.sorted { $0.key.uuidString < $1.key.uuidString }
            .map { "\($0.key.uuidString): \($0.value)" }.joined(separator: ", ") + "}"
    }

    private struct Process: Codable {
        var id: UUID
        var clock: Int
    }

    private enum CodingKeys: String, CodingKey { case processes }

    /// Reads CareKit's `{"processes":[{"id":UUID,"clock":Int}]}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let list = try container.decode([Process].self, forKey: .processes)
        var processes: [UUID: Int] = [:]
        for process in list { processes[process.id] = max(processes[process.id] ?? 0, process.clock) }
        self.init(processes)
    }

    /// Writes CareKit's `{"processes":[{"id":UUID,"clock":Int}]}`, in uuid order so the bytes are stable.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let list = processes.sorted { $0.key.uuidString < $1.key.uuidString }.map { Process(id: $0.key, clock: $0.value) }
        try container.encode(list, forKey: .processes)
    }
}
