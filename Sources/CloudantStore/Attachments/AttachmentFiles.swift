internal import CipherVFS
internal import CloudantCore
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// The folder beside a store's SQLite file that keeps large attachments as files, one per digest
/// (`<store file>-attachments/<md5 in hex>`), so their bytes never pass through SQLite's pages and can be
/// streamed in and out in pieces.
///
/// - Writes are atomic: content goes to a file in `staging/`, is flushed to disk, then renamed to its digest's
///   name and the folder flushed, all before the transaction that refers to it commits. A crash leaves
///   either no file or a complete one.
/// - A file is removed after the commit that drops the last revision referring to it (compaction, purge,
///   expiry). Files no row names (a crash between rename and commit, or between commit and removal) are
///   swept when the store opens, once they are older than ``sweepAge`` so another process's upload in
///   flight is never touched.
struct AttachmentFiles: Sendable {
    /// Stored attachments at least this long are kept as files. SQLite's own measurements ("Internal Versus
    /// External BLOBs") put the break-even near 100 KB for 4 KB pages; below it a row is faster.
    static let threshold = 128 * 1024
    /// How old an unreferenced file must be before the open-time sweep removes it.
    static let sweepAge: TimeInterval = 600
    /// Bytes per read or write of an attachment file.
    static let chunkSize = 256 * 1024

    /// The folder (`<store file>-attachments`).
    let directory: String
    /// How files are encrypted, for a store opened with a key (``AttachmentFileCipher``); nil keeps them
    /// as they are.
    let cipher: AttachmentFileCipher?

    /// The folder for the store file at `databasePath` (encrypted when a key is registered for it), or nil
    /// for an in-memory store (which keeps every attachment in its rows).
    init?(databasePath: String) {
        guard !databasePath.isEmpty, databasePath != ":memory:" else { return nil }
        self.init(
            directory: databasePath + "-attachments",
            cipher: CipherVFS.registeredKey(forDatabaseAt: databasePath).map { AttachmentFileCipher(DatabaseKey(symmetricKey: $0)) })
    }

    init(directory: String, cipher: AttachmentFileCipher?) {
        self.directory = directory
        self.cipher = cipher
    }

    var stagingDirectory: String { directory + "/staging" }

    /// The file that holds the bytes of `digest`.
    func path(for digest: String) -> String {
        if let cipher { return directory + "/" + cipher.fileName(for: digest) }
        let bytes = AttachmentDigest.md5Bytes(of: digest) ?? Array(digest.utf8)
        return directory + "/" + bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// A new, empty staging file, open for writing.
    func makeStagingFile() throws -> StagingFile {
        try Self.createDirectory(stagingDirectory)
        return try StagingFile(path: stagingDirectory + "/" + UUID().uuidString, cipher: cipher)
    }

    /// Writes `bytes` as the file of `digest` (atomically, flushed) unless it already exists.
    func write(_ bytes: [UInt8], digest: String) throws {
        let target = path(for: digest)
        guard access(target, F_OK) != 0 else { return }
        let file = try makeStagingFile()
        do {
            try file.append(bytes)
            try install(file.finish(), as: digest)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Moves a finished staging file into place as the file of `digest` (or drops it when that file exists:
    /// the content is the same) and flushes the folder, so the name survives a crash.
    func install(_ stagedPath: String, as digest: String) throws {
        guard stagedPath.hasPrefix(stagingDirectory + "/") else {
            throw CloudantError(.invalidInput, "A staged attachment must come from this store's staging folder.")
        }
        let target = path(for: digest)
        if access(target, F_OK) == 0 {
            unlink(stagedPath)
            return
        }
        guard rename(stagedPath, target) == 0 else { throw Self.ioError("move the attachment file into place", errno) }
        try Self.syncDirectory(directory)
    }

    /// Removes the files of `digests` (after the commit that made them unreferenced).
    func remove(_ digests: [String]) {
        for digest in digests { unlink(path(for: digest)) }
    }

    /// Removes files no row names, and staging files, older than ``sweepAge``.
    func sweep(keeping referenced: Set<String>) {
        let manager = FileManager.default
        let keep = Set(referenced.map { path(for: $0) })
        let cutoff = Date().addingTimeInterval(-Self.sweepAge)
        func isOld(_ path: String) -> Bool {
            ((try? manager.attributesOfItem(atPath: path)[.modificationDate]) as? Date).map { $0 < cutoff } ?? false
        }
        for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] where name != "staging" {
            let path = directory + "/" + name
            if !keep.contains(path), isOld(path) { unlink(path) }
        }
        for name in (try? manager.contentsOfDirectory(atPath: stagingDirectory)) ?? [] {
            let path = stagingDirectory + "/" + name
            if isOld(path) { unlink(path) }
        }
    }

    /// Finishes a key change (``DocumentStore/changeEncryptionKey(ofStoreAt:from:to:)``) a crash interrupted
    /// after the database took its new key: the folder of re-encrypted files (`-attachments.rekey`) is this
    /// store's when it holds a file of `referenced` under this folder's cipher, and then replaces the old
    /// folder; otherwise it belongs to a key change that never reached the database and is removed.
    func finishInterruptedKeyChange(keeping referenced: Set<String>) throws {
        let manager = FileManager.default
        let pending = directory + ".rekey", retired = directory + ".retired"
        if manager.fileExists(atPath: pending) {
            let candidate = AttachmentFiles(directory: pending, cipher: cipher)
            let belongs = referenced.contains { manager.fileExists(atPath: candidate.path(for: $0)) }
            if belongs {
                if manager.fileExists(atPath: directory) {
                    try? manager.removeItem(atPath: retired)
                    try manager.moveItem(atPath: directory, toPath: retired)
                }
                try manager.moveItem(atPath: pending, toPath: directory)
            } else {
                try manager.removeItem(atPath: pending)
            }
        }
        if manager.fileExists(atPath: retired) { try manager.removeItem(atPath: retired) }
    }

    /// Opens the file of `digest` for reading; nil when there is none.
    func open(_ digest: String) -> AttachmentFileReader? {
        AttachmentFileReader(path: path(for: digest), cipher: cipher)
    }

    /// Removes the folder of the store file at `databasePath` (when the store is deleted).
    static func removeAll(forDatabaseAt databasePath: String) throws {
        guard let files = AttachmentFiles(databasePath: databasePath),
            FileManager.default.fileExists(atPath: files.directory)
        else { return }
        try FileManager.default.removeItem(atPath: files.directory)
    }

    static func createDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CloudantError(
                .storeUnwritable, "Could not create the attachment folder \(path); check its permissions.", underlying: error)
        }
    }

    static func syncDirectory(_ path: String) throws {
        let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw ioError("open the attachment folder", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError("flush the attachment folder", errno) }
    }

    static func ioError(_ action: String, _ code: Int32) -> CloudantError {
        CloudantError(.storeUnwritable, "Could not \(action): \(String(cString: strerror(code))).")
    }
}

/// A staging file being written: appended to in pieces, then flushed and closed. Dropped unfinished, it
/// removes itself.
final class StagingFile {
    let path: String
    private let descriptor: Int32
    private let cipher: AttachmentFileCipher?
    private var open = true
    /// Content not yet sealed into a chunk (encrypted files only).
    private var pending: [UInt8] = []
    private var chunksWritten = 0
    /// Content bytes appended so far.
    private(set) var count = 0

    init(path: String, cipher: AttachmentFileCipher? = nil) throws {
        self.path = path
        self.cipher = cipher
        descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AttachmentFiles.ioError("create a staging file for an attachment", errno) }
    }

    /// Appends `bytes`.
    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Appends `bytes`.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        count += bytes.count
        guard let cipher else { return try writeAll(bytes) }
        pending.append(contentsOf: bytes)
        // A full chunk is sealed once more content follows it: only then is it known not to be the last.
        while pending.count > AttachmentFileCipher.chunkSize {
            let sealed = try pending.withUnsafeBytes {
                try cipher.seal(UnsafeRawBufferPointer(rebasing: $0[0..<AttachmentFileCipher.chunkSize]), index: chunksWritten, isLast: false)
            }
            try sealed.withUnsafeBytes { try writeAll($0) }
            pending.removeFirst(AttachmentFileCipher.chunkSize)
            chunksWritten += 1
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw AttachmentFiles.ioError("write an attachment file", errno)
            }
            offset += written
        }
    }

    /// Flushes and closes the file; returns its path. The file is then the caller's to move or remove.
    func finish() throws -> String {
        guard open else { return path }
        if let cipher {
            let sealed = try pending.withUnsafeBytes { try cipher.seal($0, index: chunksWritten, isLast: true) }
            try sealed.withUnsafeBytes { try writeAll($0) }
            pending = []
        }
        open = false
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            unlink(path)
            throw AttachmentFiles.ioError("flush an attachment file", errno)
        }
        return path
    }

    /// Closes and removes the file (a failed or abandoned upload).
    func discard() {
        guard open else { return }
        open = false
        close(descriptor)
        unlink(path)
    }

    deinit { discard() }
}

/// An attachment file open for reading. The open descriptor keeps the bytes readable even when a
/// compaction removes the file's name meanwhile.
final class AttachmentFileReader: @unchecked Sendable {
    // @unchecked: the descriptor is only read with `pread`, which is safe from any thread.
    private let descriptor: Int32
    private let cipher: AttachmentFileCipher?
    /// The bytes on disk.
    private let fileSize: Int
    /// The content's length (the file's, less the chunk overhead of an encrypted one).
    let count: Int

    init?(path: String, cipher: AttachmentFileCipher? = nil) {
        descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        self.cipher = cipher
        fileSize = Int(status.st_size)
        count = cipher == nil ? fileSize : AttachmentFileCipher.plaintextLength(ofFileSize: fileSize)
    }

    /// Up to `length` content bytes from `offset`.
    func read(at offset: Int, length: Int) throws -> [UInt8] {
        let wanted = max(0, min(length, count - offset))
        guard let cipher else { return try readRaw(at: offset, length: wanted) }
        guard wanted > 0 else { return [] }
        let chunk = AttachmentFileCipher.chunkSize, stride = chunk + AttachmentFileCipher.overhead
        let lastChunk = max(0, (fileSize + stride - 1) / stride - 1)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(wanted)
        var index = offset / chunk
        while bytes.count < wanted {
            let sealed = try readRaw(at: index * stride, length: min(stride, fileSize - index * stride))
            let plain = try cipher.open(sealed, index: index, isLast: index == lastChunk)
            let start = index == offset / chunk ? offset - index * chunk : 0
            bytes += plain[min(start, plain.count)..<min(plain.count, start + wanted - bytes.count)]
            guard index < lastChunk else { break }
            index += 1
        }
        return bytes
    }

    /// `length` bytes of the file as stored, from `offset`.
    private func readRaw(at offset: Int, length: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, length))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                throw CloudantError(.storeUnreadable, "Could not read an attachment file: \(got < 0 ? String(cString: strerror(errno)) : "it is shorter than recorded").")
            }
            done += got
        }
        return bytes
    }

    /// The whole content.
    func readAll() throws -> [UInt8] { try read(at: 0, length: count) }

    deinit { close(descriptor) }
}
