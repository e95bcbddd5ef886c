internal import CloudantCore
public import Foundation

/// A file read in pieces (256 KB by default), as the content of
/// ``DocumentStore/putAttachment(_:documentID:rev:contentType:encoding:length:digest:maxLength:content:)``:
/// a file of any size goes into the store without being read whole.
///
/// ```swift
/// let result = try await store.putAttachment(
///     "mri.dcm", documentID: "visit-12", rev: rev, contentType: "application/dicom",
///     content: try FilePieces(path: "/data/mri.dcm"))
/// ```
public struct FilePieces: AsyncSequence, @unchecked Sendable {
    // @unchecked: the handle is read by one iterator at a time, from one task; it is not shared otherwise.
    public typealias Element = [UInt8]
    let handle: FileHandle
    let pieceSize: Int

    /// Reads from an open handle (standard input, a file); the handle is closed after the last piece.
    public init(handle: FileHandle, pieceSize: Int = 256 * 1024) {
        self.handle = handle
        self.pieceSize = Swift.max(1, pieceSize)
    }

    /// Reads the file at `path`.
    /// - Throws: `CloudantError` `.invalidInput` when it cannot be opened.
    public init(path: String, pieceSize: Int = 256 * 1024) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CloudantError(.invalidInput, "Cannot read \(path); check the path and its permissions.", context: .init(field: "file"))
        }
        self.init(handle: handle, pieceSize: pieceSize)
    }

    /// Reads the pieces in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle
        let pieceSize: Int

        /// The next piece, or nil (closing the handle) at the end.
        public mutating func next() async throws -> [UInt8]? {
            guard let data = try handle.read(upToCount: pieceSize), !data.isEmpty else {
                try? handle.close()
                return nil
            }
            return Array(data)
        }
    }

    /// Starts reading where the handle is.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: handle, pieceSize: pieceSize) }
}
