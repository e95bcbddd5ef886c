internal import Foundation

/// Reads a file handle line by line in fixed-size chunks, so a JSON Lines file of any size streams in
/// constant memory.
struct LineReader: Sequence, IteratorProtocol {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private let chunkSize = 1 << 20

    init(_ handle: FileHandle) {
        self.handle = handle
    }

    mutating func next() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<newline]
                start = newline + 1
                return line
            }
            if finished {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = handle.readData(ofLength: chunkSize)
            if chunk.isEmpty { finished = true } else { buffer.append(contentsOf: chunk) }
        }
    }
}
