/// The bodies a compression dictionary is trained from, laid end to end in one buffer with their sizes, the
/// form zstd's trainer reads.
///
/// Collected straight into that buffer, a training holds each body once: as an array of arrays, flattened for
/// the trainer, it held every body twice, about 7 MB at a time for a kind of health samples, and the heap
/// kept what it had grown to.
struct TrainingSamples {
    /// The bodies, one after another.
    private(set) var bytes: [UInt8] = []
    /// Each body's length, in order.
    private(set) var sizes: [Int] = []

    /// Starts empty, with room for `capacity` bytes of bodies: grown by doubling instead, the buffer was
    /// copied on the way and could end up twice the size of what it holds.
    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// `bodies` laid end to end, in a buffer of exactly their size.
    init(_ bodies: [[UInt8]]) {
        self.init(reservingCapacity: bodies.reduce(0) { $0 + $1.count })
        for body in bodies { append(body) }
    }

    /// How many bodies there are.
    var count: Int { sizes.count }

    /// The bodies' bytes together.
    var totalBytes: Int { bytes.count }

    /// Adds `body` at the end; returns where it stands in ``bytes``.
    @discardableResult
    mutating func append(_ body: UnsafeRawBufferPointer) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: body)
        sizes.append(body.count)
        return start..<bytes.count
    }

    /// Adds `body` at the end; returns where it stands in ``bytes``.
    @discardableResult
    mutating func append(_ body: [UInt8]) -> Range<Int> {
        body.withUnsafeBytes { append($0) }
    }
}
