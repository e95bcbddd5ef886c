internal import CSQLite
internal import CloudantCore
internal import Foundation
internal import GRDB

/// How one store keeps document bodies on disk: as zstd frames, each kind's with a dictionary trained from
/// that kind's own documents once it has enough of them (``BodyDictionaryTraining``).
///
/// A stored body is either JSON text (a body too small to gain, a small one of a kind without a dictionary
/// yet, one written with compression off or before the store compressed) or a zstd frame; the first byte tells which (`{` or
/// ``Zstd/frameMagic``), so both live side by side in one column and every read path takes either. A frame
/// records its decompressed size and its dictionary's id, so decoding needs nothing but the store's own
/// `body_dictionaries` table. Decompression gives back the exact bytes written: reads are byte-identical.
///
/// One codec serves all of a store's connections. It learns a dictionary only once the transaction that
/// stored it has committed, so no body is ever compressed with a dictionary the file may not keep.
final class BodyCodec: @unchecked Sendable {
    /// zstd's level: 3 (its default) compressed a health sample with a dictionary to 146 bytes, level 1 to
    /// about 10 % more; higher levels gained little on bodies this small and cost several times the time.
    static let level: Int32 = 3
    /// Bodies shorter than this stay JSON text: a frame's header outweighs what compression saves on them.
    static let minimumCompressedLength = 48
    /// Bodies at least this long are compressed even without a dictionary: zstd's fixed cost per frame is
    /// small beside them (a workout route of 180 KB of JSON shrinks about fivefold).
    static let largeBodyLength = 4_096

    /// Whether new bodies are compressed (``StoreOptions/compressesBodies``); decoding never depends on it.
    let compresses: Bool

    private let lock = NSLock()
    private var dictionariesByID: [UInt32: BodyDictionary] = [:]
    private var dictionariesByKind: [String: BodyDictionary] = [:]
    /// Bodies of each kind written without a dictionary since the store opened; see ``kindsDueForTraining``.
    private var writtenWithoutDictionary: [String: Int] = [:]
    /// The kinds whose count reached ``BodyDictionaryTraining/threshold``, kept as the counts change so the
    /// writer's check after each commit (``isTrainingDue``) reads no more than this.
    private var dueKinds: Set<String> = []

    init(compresses: Bool) {
        self.compresses = compresses
    }

    // MARK: Writing

    /// The stored form of `json`, a body of a document of `kind`: a zstd frame (with the kind's dictionary
    /// when it has one, without for a body of ``largeBodyLength`` or more), or nil to store the JSON text
    /// itself (compression off, a small body, one that does not shrink, or a body of a kind without a
    /// dictionary yet).
    ///
    /// Why not zstd without a dictionary for every body until one is trained: on bodies of about 900 bytes
    /// it halves them but costs about 13 µs to compress and 6 µs to read back, where a dictionary frame takes
    /// a quarter of the bytes for 5 µs and 1.8 µs (measured with libzstd 1.5.4, level 3): small bodies of
    /// kinds still untrained would pay the most for the least.
    func encode(_ json: [UInt8], kind: String?, countingTowardTraining: Bool = true) -> [UInt8]? {
        guard compresses, json.count >= Self.minimumCompressedLength else { return nil }
        let key = kind ?? ""
        let dictionary = lock.withLock { () -> BodyDictionary? in
            if let dictionary = dictionariesByKind[key] { return dictionary }
            // A body too long to be sampled for training does not count toward it
            // (``BodyDictionaryTraining/isSample(jsonLength:)``): a kind of only such bodies never comes due.
            guard countingTowardTraining, BodyDictionaryTraining.isSample(jsonLength: json.count) else { return nil }
            writtenWithoutDictionary[key, default: 0] += 1
            if writtenWithoutDictionary[key] == BodyDictionaryTraining.threshold { dueKinds.insert(key) }
            return nil
        }
        guard dictionary != nil || json.count >= Self.largeBodyLength else { return nil }
        return Self.compress(json, with: dictionary)
    }

    /// `json` as a frame compressed with `dictionary` (or none), or nil when that does not make it smaller.
    static func compress(_ json: [UInt8], with dictionary: BodyDictionary?) -> [UInt8]? {
        json.withUnsafeBytes { compress($0, with: dictionary) }
    }

    /// ``compress(_:with:)`` of JSON bytes in a buffer of the caller's.
    static func compress(_ json: UnsafeRawBufferPointer, with dictionary: BodyDictionary?) -> [UInt8]? {
        guard let frame = Zstd.compress(json, level: level, dictionary: dictionary), frame.count < json.count else { return nil }
        return frame
    }

    /// The kinds that have had ``BodyDictionaryTraining/threshold`` bodies written without a dictionary
    /// since the store opened: training one for them now pays off.
    var kindsDueForTraining: [String] {
        lock.withLock { dueKinds.sorted() }
    }

    /// Whether any kind is due for training (``kindsDueForTraining`` is not empty).
    var isTrainingDue: Bool {
        lock.withLock { !dueKinds.isEmpty }
    }

    /// Starts counting a kind's writes again (training found too little to learn from, or failed).
    func postponeTraining(of kind: String) {
        lock.withLock {
            writtenWithoutDictionary[kind] = 0
            dueKinds.remove(kind)
        }
    }

    /// Uses `dictionary` for its kind's writes from now on; call once the transaction that stored it committed.
    func adopt(_ dictionary: BodyDictionary) {
        lock.withLock {
            dictionariesByID[dictionary.id] = dictionary
            dictionariesByKind[dictionary.kind] = dictionary
            writtenWithoutDictionary[dictionary.kind] = nil
            dueKinds.remove(dictionary.kind)
        }
    }

    /// The dictionary the store compresses `kind`'s bodies with, if it has one.
    func dictionary(forKind kind: String) -> BodyDictionary? {
        lock.withLock { dictionariesByKind[kind] }
    }

    /// Whether a stored body is already in the form ``encode(_:kind:countingTowardTraining:)`` would give it now: compressed with
    /// its kind's dictionary when the kind has one and the body is large enough, without one when the kind
    /// has none and the body is large; JSON text otherwise, and when the store does not compress. A body of the
    /// right size stored as text may still be current (one that compression does not shrink); rewriting
    /// it gives the same text back.
    func isCurrent(_ stored: [UInt8], kind: String?) -> Bool {
        let isFrame = stored.withUnsafeBytes { Zstd.isFrame($0) }
        guard compresses else { return !isFrame }
        let dictionaryID = dictionary(forKind: kind ?? "")?.id
        guard isFrame else { return stored.count < (dictionaryID == nil ? Self.largeBodyLength : Self.minimumCompressedLength) }
        return stored.withUnsafeBytes { Zstd.dictionaryID(ofFrame: $0) } == (dictionaryID ?? 0)
    }

    // MARK: Reading

    /// The JSON bytes of a stored body read on `connection`.
    /// - Throws: `CloudantError` `.storeUnreadable` for a damaged frame or one whose dictionary the file lacks.
    func decode(_ stored: UnsafeRawBufferPointer, connection: OpaquePointer?) throws -> [UInt8] {
        guard Zstd.isFrame(stored) else { return Array(stored) }
        let (size, dictionary) = try header(ofFrame: stored, connection: connection)
        guard let json = try Zstd.decompress(stored, size: size, dictionary: dictionary) else { throw Self.undecompressable }
        return json
    }

    /// What decoding a frame needs from its header: its JSON's size and the dictionary it names (nil for
    /// none). `known` is taken without a lookup when it is the one named (``BodyReader`` keeps its last).
    /// - Throws: `CloudantError` `.storeUnreadable` for a header without a valid size, or a dictionary the
    ///   file lacks.
    func header(
        ofFrame stored: UnsafeRawBufferPointer, connection: OpaquePointer?, known: BodyDictionary? = nil
    ) throws -> (size: Int, dictionary: BodyDictionary?) {
        guard let size = Zstd.contentSize(ofFrame: stored) else {
            throw CloudantError(.storeUnreadable, "A stored document body is damaged (its zstd frame has no valid size).")
        }
        let id = Zstd.dictionaryID(ofFrame: stored)
        if id == 0 { return (size, nil) }
        if let known, known.id == id { return (size, known) }
        return (size, try dictionary(id: id, connection: connection))
    }

    /// A frame whose header reads but whose content does not decompress to the size it records.
    static let undecompressable = CloudantError(
        .storeUnreadable, "A stored document body is damaged (its zstd frame does not decompress).")

    /// ``decode(_:connection:)`` of bytes already in an array: plain JSON is returned without a copy.
    func decode(_ stored: [UInt8], connection: OpaquePointer?) throws -> [UInt8] {
        guard stored.first == Zstd.frameMagic[0] else { return stored }
        return try stored.withUnsafeBytes { try decode($0, connection: connection) }
    }

    /// The decompressed length of a stored body, read from a frame's header without decompressing it.
    static func jsonLength(of stored: UnsafeRawBufferPointer) -> Int {
        guard Zstd.isFrame(stored) else { return stored.count }
        return Zstd.contentSize(ofFrame: stored) ?? stored.count
    }

    /// The dictionary with `id`, read from `body_dictionaries` on `connection` the first time it is needed.
    /// Ids are never reused in a file, so what was read once stays right for the store's life.
    private func dictionary(id: UInt32, connection: OpaquePointer?) throws -> BodyDictionary {
        if let known = lock.withLock({ dictionariesByID[id] }) { return known }
        guard let connection, let stored = try BodyDictionaryTable.read(id: id, connection: connection),
            let dictionary = BodyDictionary(id: id, kind: stored.kind, bytes: stored.bytes, level: Self.level)
        else {
            throw CloudantError(
                .storeUnreadable, "A stored document body names compression dictionary \(id), which the store does not hold.")
        }
        lock.withLock { dictionariesByID[id] = dictionary }
        return dictionary
    }
}

extension BodyCodec {
    /// The codec of the store whose connection `db` is (see ``of(connection:)``).
    static func of(_ db: Database) -> BodyCodec {
        of(connection: db.sqliteConnection)
    }

    /// The codec of the store whose connection this is: registered on each connection as it opens
    /// (``register(on:)``); a connection the store did not open (a tool reading the file) gets one that
    /// compresses nothing and reads dictionaries from the file as it needs them.
    static func of(connection: OpaquePointer?) -> BodyCodec {
        guard let connection else { return BodyCodec(compresses: false) }
        return registry.withLock { $0[UInt(bitPattern: connection)]?.codec } ?? BodyCodec(compresses: false)
    }

    /// The JSON bytes of a body a GRDB row read on `db` holds, decoded with `db`'s codec.
    static func decode(_ stored: Data, in db: Database) throws -> [UInt8] {
        try stored.withUnsafeBytes { try of(db).decode($0, connection: db.sqliteConnection) }
    }

    /// Makes this the codec of `db` (every connection of the store's pool, from its `prepareDatabase`) and
    /// gives the connection the `cloudant_body` SQL function (``BodySQLFunction``).
    func register(on db: Database) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(message: "The database connection is closed.") }
        Self.registry.withLock { entries in
            entries = entries.filter { $0.value.codec != nil }
            entries[UInt(bitPattern: connection)] = WeakCodec(codec: self)
        }
        try BodySQLFunction.install(on: db, codec: self)
    }

    private struct WeakCodec {
        weak var codec: BodyCodec?
    }

    /// Codecs by connection handle. A handle's address can be reused once its connection is closed, which
    /// is why every connection registers as it opens, replacing whatever entry had its address.
    private static let registry = LockedRegistry()

    private final class LockedRegistry: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [UInt: WeakCodec] = [:]
        func withLock<T>(_ body: (inout [UInt: WeakCodec]) -> T) -> T {
            lock.withLock { body(&entries) }
        }
    }
}
