internal import CZstd
internal import CloudantCore
internal import Foundation

/// The few zstd calls stored bodies need: one-shot compression and decompression of small frames, with or
/// without a dictionary, and dictionary training.
///
/// Contexts are costly to create (each holds its working tables), so a small pool of them is kept per
/// process and lent out one call at a time; dictionaries are digested once (``BodyDictionary``) and shared
/// by every thread, as zstd allows.
enum Zstd {
    /// The first four bytes of every zstd frame (RFC 8878: 0xFD2FB528, little-endian). A stored JSON body
    /// starts with `{`, so the first byte alone tells a compressed body from a plain one.
    static let frameMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// The first four bytes of a zstd dictionary (0xEC30A437, little-endian); its id follows in four more.
    static let dictionaryMagic: [UInt8] = [0x37, 0xA4, 0x30, 0xEC]

    /// Whether `bytes` start a zstd frame.
    static func isFrame(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x28 && bytes[1] == 0xB5 && bytes[2] == 0x2F && bytes[3] == 0xFD
    }

    /// The dictionary a frame was compressed with (0: none), from its header.
    static func dictionaryID(ofFrame frame: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = frame.baseAddress else { return 0 }
        return ZSTD_getDictID_fromFrame(base, frame.count)
    }

    /// The decompressed size a frame's header records, or nil when it records none or is malformed.
    static func contentSize(ofFrame frame: UnsafeRawBufferPointer) -> Int? {
        guard let base = frame.baseAddress else { return nil }
        let size = ZSTD_getFrameContentSize(base, frame.count)
        // ZSTD_CONTENTSIZE_UNKNOWN and ZSTD_CONTENTSIZE_ERROR are the two largest values.
        guard size < UInt64.max - 1, size <= UInt64(Int32.max) else { return nil }
        return Int(size)
    }

    /// Compresses `input` into one frame that records its size and its dictionary's id; nil when zstd fails
    /// (no context could be allocated), and the body is then stored as it is.
    static func compress(_ input: UnsafeRawBufferPointer, level: Int32, dictionary: BodyDictionary?) -> [UInt8]? {
        guard let source = input.baseAddress, !input.isEmpty else { return nil }
        let bound = ZSTD_compressBound(input.count)
        return compressionContexts.withContext { context in
            [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
                let written =
                    if let dictionary {
                        ZSTD_compress_usingCDict(context, buffer.baseAddress, bound, source, input.count, dictionary.compression)
                    } else {
                        ZSTD_compressCCtx(context, buffer.baseAddress, bound, source, input.count, level)
                    }
                count = ZSTD_isError(written) == 0 ? written : 0
            }
        }?.nonEmpty
    }

    /// Decompresses one frame of known content size into `size` bytes; nil when the frame is damaged, needs
    /// another dictionary, or does not hold exactly `size` bytes.
    /// - Throws: `CloudantError` `.storeUnreadable` when zstd cannot allocate a context (out of memory).
    static func decompress(_ frame: UnsafeRawBufferPointer, size: Int, dictionary: BodyDictionary?) throws -> [UInt8]? {
        var failed = false
        let output = decompressionContexts.withContext { context in
            [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                failed = !decompress(frame, into: UnsafeMutableRawBufferPointer(buffer), context: context, dictionary: dictionary)
                count = failed ? 0 : size
            }
        }
        guard let output else { throw noDecompressionContext }
        return failed ? nil : output
    }

    /// The size of the trainer's table of d-mer frequencies, as a power of two (zstd's default is 20).
    ///
    /// The table takes 4 bytes an entry and a second one 2 bytes an entry, so 2^20 held 6 MB for each
    /// training, on top of the samples: a health import trains a dictionary for each kind as it comes, and
    /// those megabytes stayed in the process's heap. With 2^16 (384 KB) a 200k-record import peaked at 86 MB
    /// instead of 96 MB and a 1M-record one at 96 MB instead of 103 MB, and the dictionaries compressed as
    /// well: the same store size as imported and compacted (410 bytes a health document, 115 a generic one).
    /// (Bodies give the trainer at most ``BodyDictionaryTraining/sampleByteLimit`` bytes of samples; those
    /// imports gave it about 3.6 MB a kind.)
    static let trainerFrequencyLog: UInt32 = 16

    /// A dictionary of at most `capacity` bytes trained from `samples` for frames compressed at `level`, or
    /// nil when zstd finds too little in them to train on (few or tiny samples).
    ///
    /// zstd's fast cover trainer with its defaults (d-mers of 8 bytes, four steps of its search over segment
    /// sizes), but a smaller frequency table (``trainerFrequencyLog``).
    static func trainDictionary(
        samples: TrainingSamples, capacity: Int, level: Int32 = 3, frequencyLog: UInt32 = trainerFrequencyLog
    ) -> [UInt8]? {
        let flat = samples.bytes
        let sizes = samples.sizes
        guard !flat.isEmpty else { return nil }
        var parameters = ZDICT_fastCover_params_t()
        parameters.d = 8
        parameters.steps = 4
        parameters.f = frequencyLog
        parameters.zParams.compressionLevel = level
        let dictionary = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            let written = flat.withUnsafeBytes { samplesBuffer in
                ZDICT_optimizeTrainFromBuffer_fastCover(
                    buffer.baseAddress, capacity, samplesBuffer.baseAddress, sizes, UInt32(sizes.count), &parameters)
            }
            count = ZDICT_isError(written) == 0 ? written : 0
        }
        return dictionary.count > 8 ? dictionary : nil
    }

    /// Decompresses one frame into exactly `output.count` bytes with `context` (a reader's own, see
    /// ``BodyReader``); false when the frame is damaged, needs another dictionary, or holds another size.
    static func decompress(
        _ frame: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, context: OpaquePointer,
        dictionary: BodyDictionary?
    ) -> Bool {
        guard let source = frame.baseAddress, let target = output.baseAddress else { return false }
        let read =
            if let dictionary {
                ZSTD_decompress_usingDDict(context, target, output.count, source, frame.count, dictionary.decompression)
            } else {
                ZSTD_decompressDCtx(context, target, output.count, source, frame.count)
            }
        return ZSTD_isError(read) == 0 && read == output.count
    }

    /// What reading a body throws when zstd cannot allocate a decompression context (out of memory).
    static let noDecompressionContext = CloudantError(
        .storeUnreadable, "zstd could not allocate a decompression context (out of memory).")

    /// A decompression context from the pool, for a caller that decodes many frames in a row; give it back
    /// with ``returnDecompressionContext(_:)``. Nil when zstd cannot allocate one.
    static func borrowDecompressionContext() -> OpaquePointer? { decompressionContexts.borrow() }

    /// Gives back a context from ``borrowDecompressionContext()``.
    static func returnDecompressionContext(_ context: OpaquePointer) { decompressionContexts.giveBack(context) }

    private static let compressionContexts = ContextPool(
        create: { ZSTD_createCCtx() }, free: { _ = ZSTD_freeCCtx($0) })
    private static let decompressionContexts = ContextPool(
        create: { ZSTD_createDCtx() }, free: { _ = ZSTD_freeDCtx($0) })
}

/// Contexts lent one call at a time; a call that finds none idle makes one, and at most `idleLimit` are kept.
/// A context zstd cannot allocate (out of memory) makes the call return nil.
private final class ContextPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [OpaquePointer] = []
    private let create: @Sendable () -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void
    private let idleLimit = 16

    init(create: @escaping @Sendable () -> OpaquePointer?, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.create = create
        self.free = free
    }

    func withContext<T>(_ body: (OpaquePointer) -> T) -> T? {
        guard let context = borrow() else { return nil }
        let result = body(context)
        giveBack(context)
        return result
    }

    /// An idle context, or a new one; nil when zstd cannot allocate one.
    func borrow() -> OpaquePointer? {
        lock.withLock({ idle.popLast() }) ?? create()
    }

    /// Keeps `context` for the next borrower, or frees it when enough are idle.
    func giveBack(_ context: OpaquePointer) {
        let kept = lock.withLock { () -> Bool in
            guard idle.count < idleLimit else { return false }
            idle.append(context)
            return true
        }
        if !kept { free(context) }
    }
}

extension Array {
    /// The array, or nil when it is empty.
    fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}
