internal import CloudantCore
internal import Foundation
internal import GRDB

/// When and from what a kind's compression dictionary is trained.
///
/// A kind gets one once ``threshold`` of its bodies have been written without one (counted from the
/// store's open, so a store that is only read never trains), from its newest ``sampleLimit`` live bodies,
/// which are then rewritten with it (until then they are JSON text, see ``BodyCodec/encode(_:kind:countingTowardTraining:)``),
/// or, when a batch of new documents brings that many at once, from the batch before it is written
/// (``DocumentStore/trainDictionaries(before:)``);
/// ``DocumentStore/compact()`` also trains one for every kind with ``compactionThreshold`` documents and no
/// dictionary yet, then rewrites older bodies with it. Measured on a generated Apple Health export (200k samples of about
/// 900 bytes of JSON): zstd alone stores a sample in about 420 bytes, with its kind's dictionary in about 150.
enum BodyDictionaryTraining {
    /// Bodies written without a dictionary before one is trained for their kind.
    static let threshold = 1_000
    /// The most bodies one dictionary is trained from.
    static let sampleLimit = 4_000
    /// The most sample bytes one training reads (zstd's trainer holds them all, plus under a megabyte of its
    /// own, see ``Zstd/trainerFrequencyLog``).
    static let sampleByteLimit = 8 << 20
    /// The largest dictionary: a tenth of the samples' bytes, up to this. Beyond it, measured on health
    /// samples, a bigger dictionary saved under a byte per body.
    static let dictionaryCapacity = 64 << 10

    /// The fewest live documents compaction trains a kind's dictionary from (``DocumentStore/compact()``):
    /// zstd's trainer needs about a hundred samples, and below a few hundred documents the dictionary (up
    /// to 64 KB) outweighs what it saves.
    static let compactionThreshold = 200

    /// The longest body sampled for training, and counted toward it. A dictionary still saves 15–30 % on bodies
    /// of 5–15 KB (measured with zstd 1.5 at level 3 on workout-like and route-like JSON), and little beyond:
    /// longer bodies compress well on their own, and ``sampleByteLimit`` holds too few of them for the trainer.
    static let largestSampleLength = 16 << 10

    /// Whether a body of `jsonLength` bytes is one to train a dictionary from: long enough to be compressed
    /// (``BodyCodec/minimumCompressedLength``) and at most ``largestSampleLength``.
    ///
    /// Longer bodies used to count and be sampled: a 1M-record health import came due for its workout routes
    /// (about 180 KB of JSON each) at the thousandth, read the newest of them up to ``sampleByteLimit`` (8 of
    /// the import's 28 MB of heap at its peak), found fewer than the hundred samples the trainer needs, and
    /// tried again a thousand routes later. Without them the import peaks about 4 MB lower.
    static func isSample(jsonLength: Int) -> Bool {
        jsonLength >= BodyCodec.minimumCompressedLength && jsonLength <= largestSampleLength
    }

    /// Trains a dictionary for `kind` from its newest live bodies and stores it, then rewrites those of the
    /// sampled bodies that are JSON text (the kind's writes since it began counting, at most) with it, all in
    /// the caller's write transaction; returns it with how many bodies it rewrote, or nil when there are too
    /// few bodies to learn from.
    static func train(kind: String, in db: Database) throws -> (dictionary: BodyDictionary, rewritten: Int)? {
        let codec = BodyCodec.of(db)
        let connection = db.sqliteConnection
        let kindCondition = kind.isEmpty ? "kind IS NULL" : "kind = \(StoreSchema.DocumentKinds.numberOfBoundName)"
        // A stored body is never longer than its JSON, so one stored longer than a sample can be is passed over
        // unread: SQLite takes `length` from the record's header, and reads the body only for the rows the
        // `CASE` keeps (a kind of workout routes would otherwise have compaction read thousands of them).
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT rowid, CASE WHEN length(body) <= \(largestSampleLength) THEN body END FROM documents "
                + "WHERE \(kindCondition) AND deleted = 0 AND body IS NOT NULL "
                + "AND id NOT LIKE '\\_design/%' ESCAPE '\\' ORDER BY seq DESC LIMIT \(sampleLimit)",
            arguments: kind.isEmpty ? [] : [kind])
        var samples = TrainingSamples(reservingCapacity: sampleByteLimit + largestSampleLength)
        var plain: [(rowID: Int64, sample: Range<Int>)] = []
        while let row = try rows.next(), samples.totalBytes < sampleByteLimit {
            let rowID: Int64 = row[0]
            try row.withUnsafeData(atIndex: 1) { data in
                try data?.withUnsafeBytes { stored in
                    guard isSample(jsonLength: BodyCodec.jsonLength(of: stored)) else { return }
                    if Zstd.isFrame(stored) {
                        samples.append(try codec.decode(stored, connection: connection))
                    } else {
                        plain.append((rowID, samples.append(stored)))
                    }
                }
            }
        }
        guard let dictionary = try store(kind: kind, trainedFrom: samples, in: db) else { return nil }
        let update = try db.cachedStatement(sql: "UPDATE documents SET body = ? WHERE rowid = ?")
        var rewritten = 0
        for (rowID, range) in plain {
            let frame = samples.bytes.withUnsafeBytes { BodyCodec.compress(UnsafeRawBufferPointer(rebasing: $0[range]), with: dictionary) }
            guard let frame else { continue }
            try update.execute(arguments: [Data(frame), rowID])
            rewritten += 1
        }
        return (dictionary, rewritten)
    }

    /// Trains a dictionary for `kind` from bodies of its documents (JSON, as stored) and stores it in the
    /// caller's write transaction; nil when they are too few to learn from (or the trainer fails). At most
    /// ``sampleLimit`` bodies and ``sampleByteLimit`` bytes are used.
    static func store(kind: String, trainedFrom bodies: [[UInt8]], in db: Database) throws -> BodyDictionary? {
        var chosen: [[UInt8]] = []
        var total = 0
        for body in bodies where isSample(jsonLength: body.count) {
            guard chosen.count < sampleLimit, total < sampleByteLimit else { break }
            chosen.append(body)
            total += body.count
        }
        return try store(kind: kind, trainedFrom: TrainingSamples(chosen), in: db)
    }

    /// ``store(kind:trainedFrom:in:)`` from samples already collected within ``sampleLimit`` and
    /// ``sampleByteLimit``.
    static func store(kind: String, trainedFrom samples: TrainingSamples, in db: Database) throws -> BodyDictionary? {
        // zstd's trainer wants many samples: with fewer it fails, or learns a dictionary that fits only them.
        guard samples.count >= 100 else { return nil }
        let capacity = min(dictionaryCapacity, max(4 << 10, samples.totalBytes / 10))
        guard let trained = Zstd.trainDictionary(samples: samples, capacity: capacity, level: BodyCodec.level) else { return nil }
        return try BodyDictionaryTable.insert(trained: trained, kind: kind, sampleCount: samples.count, in: db, level: BodyCodec.level)
    }
}

extension DocumentStore {
    /// Trains, before a batch of new documents is written, a dictionary for each kind the batch brings
    /// ``BodyDictionaryTraining/threshold`` bodies or more of and that has none yet, from those bodies, each
    /// in a write transaction of its own, and adopts it: the batch is then compressed with it as it is
    /// written. Without this the first batch of an import went in as JSON text and was rewritten with the
    /// dictionary trained after it, and pages of rows that shrank to a fifth stayed mostly empty until
    /// compaction (2.4 MB of a 20 MB store after importing a 40k-record export). A kind whose bodies teach
    /// nothing is left to the usual training after commits.
    func trainDictionaries(before batch: [NewDocument]) async {
        guard bodyCodec.compresses else { return }
        let byKind = Dictionary(grouping: batch) { $0.kind ?? "" }
        for (kind, documents) in byKind.sorted(by: { $0.key < $1.key })
        where documents.count >= BodyDictionaryTraining.threshold && bodyCodec.dictionary(forKind: kind) == nil {
            let bodies = documents.map(\.bytes)
            let trained = try? await write(.storeUnwritable) { db in
                try BodyDictionaryTraining.store(kind: kind, trainedFrom: bodies, in: db)
            }
            if let trained { bodyCodec.adopt(trained) }
        }
    }

    /// Trains the dictionaries the codec asks for (``BodyCodec/kindsDueForTraining``), each in a write
    /// transaction of its own, and adopts each once committed. Called by the writer after a commit, which
    /// stands whatever training does: a training that fails (a full disk) or finds too little to learn from
    /// is put off until the kind's next thousand writes, never retried on every write.
    func trainDueDictionaries() {
        for kind in bodyCodec.kindsDueForTraining {
            let trained = try? writeNow { db in try BodyDictionaryTraining.train(kind: kind, in: db) }
            if let trained { bodyCodec.adopt(trained.dictionary) } else { bodyCodec.postponeTraining(of: kind) }
        }
    }
}
