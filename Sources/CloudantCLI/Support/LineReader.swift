internal import CloudantOnly
internal import Foundation

/// Reads a file handle line by line in fixed-size chunks, so a JSON Lines file of any size streams in
/// constant memory (plus the longest line).
///
/// Each byte is searched for a newline once: a line longer than a chunk is scanned from where the last
/// search stopped, not from its start again, so reading is linear in the input however long its lines.
/// Read errors are thrown (Foundation's `readData(ofLength:)` would trap on them, a directory included).
struct LineReader {
    private let handle: FileHandle
    private let name: String
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of `buffer` from `start` up to here hold no newline.
    private var searched = 0
    private var finished = false
    private let chunkSize: Int
    /// How many bytes the newline search has looked at (at most the input's size, plus one per line).
    private(set) var bytesSearched = 0

    /// - Parameters:
    ///   - name: the file's name, for errors.
    ///   - chunkSize: how many bytes each read asks for.
    init(_ handle: FileHandle, name: String, chunkSize: Int = 1 << 20) {
        self.handle = handle
        self.name = name
        self.chunkSize = max(1, chunkSize)
    }

    /// The next line without its newline, or `nil` at the end of the input.
    /// - Throws: ``CloudantError`` `.storeUnreadable` naming the file when it cannot be read.
    mutating func nextLine() throws -> ArraySlice<UInt8>? {
        while true {
            let from = max(start, searched)
            if let newline = buffer[from...].firstIndex(of: UInt8(ascii: "\n")) {
                bytesSearched += newline - from + 1
                let line = buffer[start..<newline]
                start = newline + 1
                searched = start
                return line
            }
            bytesSearched += buffer.count - from
            searched = buffer.count
            if finished {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                searched -= start
                start = 0
            }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: chunkSize)
            } catch {
                throw CloudantError(
                    .storeUnreadable, "Cannot read \(name); give a readable JSON Lines file, or - for standard input.",
                    context: .init(field: "file"), underlying: error)
            }
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { finished = true }
        }
    }
}
