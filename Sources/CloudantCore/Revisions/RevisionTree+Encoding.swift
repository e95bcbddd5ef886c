// The storage form of a revision tree: one small BLOB per document.
//
// Layout (version 1), all integers unsigned LEB128 varints:
//
//     version byte (1) · node count · nodes…
//     node = flags byte · generation delta · [parent distance] · hash
//     flags: 1 = deleted, 2 = body available, 4 = has a parent, 8 = hash is 32 lowercase hex (stored as 16 bytes)
//     generation delta = generation − previous node's generation (the first node counts from 0)
//     parent distance  = this node's index − its parent's index (≥ 1; parents sort before children)
//     hash = 16 raw bytes when flag 8 is set, else byte length · UTF-8 bytes
//
// Nodes are written in revision order (generation, then hash bytes), so equal trees encode to equal bytes
// and a linear history costs 19 bytes per revision. Decoding checks every invariant, so a corrupt BLOB is
// an error, never a malformed tree; it reads the hashes of one generation in any order (trees written under
// an older, intransitive hash order stay readable). The layout is frozen once data exists: change it only with a new
// version byte and a decoder for every older one.

extension RevisionTree {
    private static let formatVersion: UInt8 = 1

    private enum Flag {
        static let deleted: UInt8 = 1
        static let bodyAvailable: UInt8 = 2
        static let hasParent: UInt8 = 4
        static let hexHash: UInt8 = 8
        static let all: UInt8 = 15
    }

    /// The tree's compact storage form; equal trees give equal bytes.
    ///
    /// ```swift
    /// let blob = tree.encoded()
    /// let same = try RevisionTree(decoding: blob)   // same == tree
    /// ```
    public func encoded() -> [UInt8] {
        let ordered = orderedPositions()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + ordered.count * 20)
        bytes.append(Self.formatVersion)
        Self.appendVarint(UInt64(ordered.count), to: &bytes)

        var previousGeneration = 0
        var generationStart = 0
        // A parent is one generation older, so it lies in the previous generation's run of the sorted
        // nodes: a binary search there finds it without hashing.
        var parentCandidates = 0..<0
        for (index, position) in ordered.enumerated() {
            let (revision, entry) = entries[position]
            if revision.generation != previousGeneration {
                parentCandidates = revision.generation == previousGeneration + 1 ? generationStart..<index : index..<index
                generationStart = index
            }
            let parentIndex = entry.parent.flatMap { self.index(of: $0, in: ordered, within: parentCandidates) }
            var flags: UInt8 = 0
            if entry.deleted { flags |= Flag.deleted }
            if entry.bodyAvailable { flags |= Flag.bodyAvailable }
            if parentIndex != nil { flags |= Flag.hasParent }
            let flagsPosition = bytes.count
            bytes.append(flags)
            Self.appendVarint(UInt64(revision.generation - previousGeneration), to: &bytes)
            previousGeneration = revision.generation
            if let parentIndex { Self.appendVarint(UInt64(index - parentIndex), to: &bytes) }
            if revision.digest.appendBytes(to: &bytes) {
                bytes[flagsPosition] |= Flag.hexHash
            } else {
                let hash = revision.hash
                Self.appendVarint(UInt64(hash.utf8.count), to: &bytes)
                bytes.append(contentsOf: hash.utf8)
            }
        }
        return bytes
    }

    /// What ``encoded()`` gives for a tree of one revision, `1-hash`, with its body: a new document's
    /// tree, written without building it (every new document pays for this, on the write's hot path).
    ///
    /// ```swift
    /// var tree = RevisionTree()
    /// try tree.addChild(RevisionID(generation: 1, hash: hash), of: nil, deleted: false)
    /// RevisionTree.encodedFirstRevision(hash: hash, deleted: false) == tree.encoded()   // true
    /// ```
    public static func encodedFirstRevision(hash: String, deleted: Bool) -> [UInt8] {
        var bytes: [UInt8] = [formatVersion, 1, 0, 1]
        bytes.reserveCapacity(20)
        var flags = Flag.bodyAvailable | (deleted ? Flag.deleted : 0)
        if RevisionID.Digest(hash).appendBytes(to: &bytes) {
            flags |= Flag.hexHash
        } else {
            appendVarint(UInt64(hash.utf8.count), to: &bytes)
            bytes.append(contentsOf: hash.utf8)
        }
        bytes[2] = flags
        return bytes
    }

    /// Whether `bytes` encode a tree of exactly one revision (a document written once), read from the header
    /// alone: such a tree has one leaf and no conflicts, which a reader that needs only the conflicts (a view
    /// build going through every document) learns without decoding it.
    ///
    /// ```swift
    /// RevisionTree.encodesSingleRevision(RevisionTree.encodedFirstRevision(hash: hash, deleted: false))   // true
    /// ```
    public static func encodesSingleRevision(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 2 && bytes[0] == formatVersion && bytes[1] == 1
    }

    /// The winning revision of the tree `bytes` encode, nil for an empty tree: the same as decoding the tree
    /// and asking for its ``winner``. A store keeps no separate copy of the winner beside its tree, so every
    /// read of a document asks this; a tree of one revision (most documents) is read from its single node
    /// without building a tree.
    ///
    /// ```swift
    /// try RevisionTree.winner(encoded: blob) == RevisionTree(decoding: blob).winner   // true
    /// ```
    ///
    /// - Throws: `CloudantError.Code.invalidInput` when the bytes are not a valid encoded tree.
    public static func winner(encoded bytes: UnsafeBufferPointer<UInt8>) throws -> RevisionID? {
        guard encodesSingleRevision(bytes) else {
            return try onlyLeafOfOneHistory(bytes) ?? RevisionTree(decoding: bytes).winner
        }
        var (flags, generation, reader) = try singleNode(of: bytes)
        let digest = try readHash(flags: flags, from: &reader)
        guard reader.remaining == 0 else { throw reader.corrupt("it has trailing bytes") }
        return RevisionID(generation: generation, digest: digest)
    }

    /// The leaf of a tree that is one unbroken history of hex-hashed revisions (each node but the first the
    /// child of the one before it, one generation apart), read by walking the bytes without building the
    /// tree: a document edited many times is read without decoding its whole history. Nil for any other tree,
    /// which the caller decodes; bytes that break a rule of the layout throw as decoding throws.
    private static func onlyLeafOfOneHistory(_ bytes: UnsafeBufferPointer<UInt8>) throws -> RevisionID? {
        var reader = Reader(bytes: bytes)
        guard try reader.byte() == formatVersion else { throw reader.corrupt("it has an unknown format version") }
        let count = try reader.varint()
        guard count >= 1, count <= UInt64(bytes.count) / 3 else { return nil }
        var generation = 0
        var last = 0..<0
        for index in 0..<Int(count) {
            let flags = try reader.byte()
            guard flags & ~Flag.all == 0 else { throw reader.corrupt("a node has unknown flags") }
            guard flags & Flag.hexHash != 0, (flags & Flag.hasParent != 0) == (index > 0) else { return nil }
            let delta = try reader.varint()
            if index == 0 {
                guard delta >= 1, delta <= UInt64(Int.max) else { return nil }
                generation = Int(delta)
            } else {
                guard delta == 1, try reader.varint() == 1, generation < Int.max else { return nil }
                generation += 1
            }
            let start = reader.offset
            _ = try reader.bytes(16)
            last = start..<reader.offset
        }
        guard reader.remaining == 0 else { throw reader.corrupt("it has trailing bytes") }
        return RevisionID(generation: generation, digest: RevisionID.Digest(bytes: UnsafeBufferPointer(rebasing: bytes[last])))
    }

    /// Calls `body` with the UTF-8 text of the winning revision (`_rev`, `generation-hash`) of the tree
    /// `bytes` encode, or returns nil for an empty tree: the text of ``winner(encoded:)``. A winner with a
    /// hex hash (nearly every document's) is written into a buffer on the stack, so a query that writes `_rev`
    /// into each row it returns allocates nothing for it.
    ///
    /// - Throws: what ``winner(encoded:)`` throws, and whatever `body` throws.
    public static func withWinnerText<T>(
        encoded bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T
    ) throws -> T? {
        guard let winner = try winner(encoded: bytes) else { return nil }
        guard case .hex = winner.digest else {
            var text = winner.description
            return try text.withUTF8(body)
        }
        // Up to 19 digits (Int.max), the dash and 32 hex digits.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 52) { text in
            try body(UnsafeBufferPointer(rebasing: text[..<winner.writeText(into: text)]))
        }
    }

    /// The only node of a one-revision tree (``encodesSingleRevision(_:)``): its flags and generation, with
    /// `reader` at its hash.
    private static func singleNode(of bytes: UnsafeBufferPointer<UInt8>) throws -> (flags: UInt8, generation: Int, reader: Reader) {
        var reader = Reader(bytes: bytes)
        reader.offset = 2
        let flags = try reader.byte()
        guard flags & ~(Flag.deleted | Flag.bodyAvailable | Flag.hexHash) == 0 else {
            throw reader.corrupt("its only node has unknown flags or a parent")
        }
        let generation = try reader.varint()
        guard generation >= 1, generation <= UInt64(Int.max) else { throw reader.corrupt("a node has generation 0") }
        return (flags, Int(generation), reader)
    }

    /// Decodes a tree from the bytes ``encoded()`` produced.
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with the byte `position` when the bytes are not a
    ///   valid encoded tree (an unknown version, truncation, a revision repeated, a parent that is not
    ///   one generation older, trailing bytes).
    public init(decoding bytes: some Collection<UInt8>) throws {
        let decoded = try bytes.withContiguousStorageIfAvailable { try Self.decode($0) } ?? Self.decode(Array(bytes))
        self.init(entries: decoded)
    }

    private static func decode(_ bytes: [UInt8]) throws -> [RevisionID: Entry] {
        try bytes.withUnsafeBufferPointer { try decode($0) }
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [RevisionID: Entry] {
        var reader = Reader(bytes: bytes)
        guard try reader.byte() == formatVersion else {
            throw reader.corrupt("it has an unknown format version")
        }
        let count = try reader.varint()
        // Every node takes at least three bytes, which bounds what a corrupt count can make us reserve.
        guard count <= UInt64(bytes.count) / 3 else { throw reader.corrupt("its node count is too large") }

        var entries: [RevisionID: Entry] = [:]
        entries.reserveCapacity(Int(count))
        var ordered: [RevisionID] = []
        ordered.reserveCapacity(Int(count))
        var generation = 0
        for index in 0..<Int(count) {
            let flags = try reader.byte()
            guard flags & ~Flag.all == 0 else { throw reader.corrupt("a node has unknown flags") }
            let delta = try reader.varint()
            guard delta <= UInt64(Int.max - generation) else { throw reader.corrupt("a generation overflows") }
            generation += Int(delta)
            guard generation >= 1 else { throw reader.corrupt("a node has generation 0") }

            var parent: RevisionID?
            if flags & Flag.hasParent != 0 {
                let distance = try reader.varint()
                guard distance >= 1, distance <= UInt64(index) else { throw reader.corrupt("a parent link is out of range") }
                let candidate = ordered[index - Int(distance)]
                guard candidate.generation == generation - 1 else {
                    throw reader.corrupt("a parent is not one generation older than its child")
                }
                parent = candidate
            }

            let revision = RevisionID(generation: generation, digest: try readHash(flags: flags, from: &reader))
            // Generations never decrease (deltas are unsigned). Within one, any hash order is read: trees
            // written before the hash order was corrected (32-byte text hashes, uppercase hex) are in an older
            // order, and the next write stores them in the current one.
            if entries[revision] != nil { throw reader.corrupt("its revisions are repeated") }
            ordered.append(revision)
            entries[revision] = Entry(
                parent: parent, deleted: flags & Flag.deleted != 0, bodyAvailable: flags & Flag.bodyAvailable != 0)
        }
        guard reader.remaining == 0 else { throw reader.corrupt("it has trailing bytes") }
        return entries
    }

    /// A node's hash: 16 raw bytes when `flags` say hex, else its byte length and UTF-8 bytes.
    private static func readHash(flags: UInt8, from reader: inout Reader) throws -> RevisionID.Digest {
        if flags & Flag.hexHash != 0 { return RevisionID.Digest(bytes: try reader.bytes(16)) }
        let length = try reader.varint()
        guard length >= 1, length <= UInt64(reader.remaining) else { throw reader.corrupt("a hash length is invalid") }
        guard let text = String(validating: try reader.bytes(Int(length)), as: UTF8.self) else {
            throw reader.corrupt("a hash is not valid UTF-8")
        }
        return RevisionID.Digest(text)
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        var remaining: Int { bytes.count - offset }

        func corrupt(_ problem: String) -> CloudantError {
            CloudantError(
                .invalidInput,
                "The stored revision tree is corrupt: \(problem). Restore the database from a backup or replicate the document again.",
                context: .init(position: offset))
        }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw corrupt("it ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bytes(_ count: Int) throws -> UnsafeBufferPointer<UInt8> {
            guard count <= remaining else { throw corrupt("it ends early") }
            defer { offset += count }
            return UnsafeBufferPointer(rebasing: bytes[offset..<offset + count])
        }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                guard shift < 63 || (shift == 63 && next <= 1) else { throw corrupt("a number overflows") }
                value |= UInt64(next & 0x7F) << shift
                if next & 0x80 == 0 { return value }
                shift += 7
            }
        }
    }

    /// The positions of the entries in revision order. Generations are small dense integers, so a counting
    /// sort on them (then sorting the rare same-generation runs by hash) beats comparing and moving whole
    /// entries; sorting positions rather than entries avoids copying their strings.
    private func orderedPositions() -> [Dictionary<RevisionID, Entry>.Index] {
        // A new document's tree has one revision: nothing to order (the general path below allocates four
        // arrays, which profiled at 3 % of a `_bulk_docs` load of small documents).
        if entries.count == 1 { return [entries.startIndex] }
        let positions = Array(entries.indices)
        guard let lowest = entries.keys.lazy.map(\.generation).min(),
            let highest = entries.keys.lazy.map(\.generation).max(), highest - lowest <= 4 * entries.count + 16
        else {
            return positions.sorted { entries[$0].key < entries[$1].key }
        }
        var starts = [Int](repeating: 0, count: highest - lowest + 2)
        for revision in entries.keys { starts[revision.generation - lowest + 1] += 1 }
        for slot in starts.indices.dropFirst() { starts[slot] += starts[slot - 1] }
        var ordered = positions
        var next = starts
        for position in positions {
            let slot = entries[position].key.generation - lowest
            ordered[next[slot]] = position
            next[slot] += 1
        }
        for slot in 0..<(starts.count - 1) where starts[slot + 1] - starts[slot] > 1 {
            ordered[starts[slot]..<starts[slot + 1]].sort { entries[$0].key < entries[$1].key }
        }
        return ordered
    }

    /// The index in `ordered` of `revision`, searched for within `range` (one generation's run).
    private func index(
        of revision: RevisionID, in ordered: [Dictionary<RevisionID, Entry>.Index], within range: Range<Int>
    ) -> Int? {
        // A generation of one revision (every step of a linear history) needs no ordering of hashes.
        if range.count == 1 { return entries[ordered[range.lowerBound]].key == revision ? range.lowerBound : nil }
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = low + (high - low) / 2
            if entries[ordered[middle]].key < revision { low = middle + 1 } else { high = middle }
        }
        return low < range.upperBound && entries[ordered[low]].key == revision ? low : nil
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}
