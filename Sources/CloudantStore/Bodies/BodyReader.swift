internal import CloudantCore

/// Decodes stored bodies one after another on one connection: a statement's rows (``DirectRow/withBody(_:_:)``)
/// or the `cloudant_body` SQL function's calls.
///
/// Each frame is decompressed into one buffer the reader keeps, with a decompression context it holds for
/// its life and the last dictionary it used, so a row costs zstd's own work: no allocation, no lock (a fresh
/// array per row, two locks to borrow and return a context and one to find the dictionary, otherwise). The
/// last frame is remembered too: a query
/// that reads several members of one body (`cloudant_body(body) -> '$.a'`, then `-> '$.b'`) decompresses
/// it once.
///
/// Not thread-safe; a reader belongs to one statement's iteration or one connection's function.
final class BodyReader {
    let codec: BodyCodec
    private var context: OpaquePointer?
    private var dictionary: BodyDictionary?
    /// The last frame decoded and its JSON (`json[..<jsonCount]`); capacity is kept between rows.
    private var frame: [UInt8] = []
    private var json: [UInt8] = []
    private var jsonCount = 0
    /// Set while a caller reads `json`: a nested decode then takes its own copy instead of overwriting it.
    private var lent = false

    init(codec: BodyCodec) {
        self.codec = codec
    }

    deinit {
        if let context { Zstd.returnDecompressionContext(context) }
    }

    /// Calls `body` with the JSON bytes of a stored body: in place when it is stored as text, else
    /// decompressed into the reader's buffer (valid only during the call).
    /// - Throws: `CloudantError` `.storeUnreadable` for a damaged frame or one whose dictionary the file
    ///   lacks; `.storeUnreadable` when zstd cannot allocate a context.
    func withJSON<T>(
        _ stored: UnsafeRawBufferPointer, connection: OpaquePointer?, _ body: (UnsafeBufferPointer<UInt8>) throws -> T
    ) throws -> T {
        guard Zstd.isFrame(stored) else { return try body(stored.assumingMemoryBound(to: UInt8.self)) }
        guard !lent else {
            let copy = try codec.decode(stored, connection: connection)
            return try copy.withUnsafeBufferPointer(body)
        }
        if !(frame.count == stored.count && frame.withUnsafeBytes({ $0.elementsEqual(stored) })) {
            try decompress(stored, connection: connection)
        }
        lent = true
        defer { lent = false }
        return try json.withUnsafeBufferPointer { buffer in try body(UnsafeBufferPointer(rebasing: buffer[..<jsonCount])) }
    }

    private func decompress(_ stored: UnsafeRawBufferPointer, connection: OpaquePointer?) throws {
        frame.removeAll(keepingCapacity: true)
        let (size, named) = try codec.header(ofFrame: stored, connection: connection, known: dictionary)
        if let named { dictionary = named }
        if context == nil { context = Zstd.borrowDecompressionContext() }
        guard let context else { throw Zstd.noDecompressionContext }
        if json.count < size { json = [UInt8](repeating: 0, count: max(size, json.count * 2)) }
        let decompressed = json.withUnsafeMutableBytes { buffer in
            Zstd.decompress(stored, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<size]), context: context, dictionary: named)
        }
        guard decompressed else { throw BodyCodec.undecompressable }
        jsonCount = size
        frame.append(contentsOf: stored)
    }
}
