@preconcurrency internal import CLibXML2

/// Feeds libxml2 an in-memory document through its read callback, a chunk at a time.
///
/// `xmlCtxtReadMemory` in libxml2 2.9 copies the whole input into a buffer of its own; a multi-megabyte
/// CDA document then costs a large allocation, and freeing it makes glibc consolidate every small node the
/// previous tree returned. Reading through a callback keeps libxml2's buffer small. The bytes are only
/// borrowed: the instance must not outlive the buffer (``XMLDocumentReader`` keeps both inside one call).
final class XMLChunkedInput {
    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    /// libxml2's `xmlInputReadCallback`: copies up to `length` bytes, returns how many (0 at the end).
    static let read: xmlInputReadCallback = { context, destination, length in
        guard let context, let destination, length > 0 else { return 0 }
        let input = Unmanaged<XMLChunkedInput>.fromOpaque(context).takeUnretainedValue()
        let count = min(Int(length), input.buffer.count - input.offset)
        guard count > 0, let base = input.buffer.baseAddress else { return 0 }
        UnsafeMutableRawPointer(destination).copyMemory(from: base + input.offset, byteCount: count)
        input.offset += count
        return Int32(count)
    }
}
