public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run the `cloudant` executable, `python3` or
/// `gzip` as a user would.
///
/// Foundation's `Process` is not used because on Linux its `run()` lists `/proc/self/fd` and copies each
/// entry's full 256-byte name out of glibc's directory buffer: once the test process holds about 1,360
/// descriptors (many stores and servers open at once), the last entry sits at the buffer's end and the copy
/// reads past it, crashing the whole test run with SIGSEGV. Here every pipe is created close-on-exec and the
/// child closes every descriptor above standard error before it starts, without listing any.
public final class ChildProcess: @unchecked Sendable {
    /// What the child reads on standard input or writes to an output.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe this side reads or writes through the matching property.
        case pipe
        /// The test process's own descriptor (standard error for diagnostics).
        case inherit
        /// A file, created if missing and appended to (a server's log a failed test can point at).
        case file(URL)
        /// A pipe whose reader is already gone: every write fails with EPIPE, as under `… | head -1`.
        case closedPipe
    }

    /// How a child ended.
    public struct Termination: Sendable, Equatable {
        /// The exit status, or `128 + signal` when a signal ended it (as shells report it).
        public var status: Int32
        /// The signal that ended it, if one did.
        public var signal: Int32?
    }

    /// The child's process id.
    public let pid: pid_t
    /// This side's end of the child's standard input, when it is a pipe.
    public let standardInput: FileHandle?
    /// This side's end of the child's standard output, when it is a pipe.
    public let standardOutput: FileHandle?
    /// This side's end of the child's standard error, when it is a pipe.
    public let standardError: FileHandle?

    // `lock` protects `termination`.
    private let lock = NSLock()
    private var termination: Termination?

    /// Starts `executable arguments…`.
    /// - Parameters:
    ///   - executable: an absolute path (no `PATH` search; use `/usr/bin/env` to search).
    ///   - workingDirectory: the child's current directory; the test process's when nil.
    ///   - environment: the child's whole environment; the test process's when nil.
    /// - Throws: `POSIXError` when a pipe cannot be made or the spawn fails.
    public init(
        _ executable: String, _ arguments: [String], workingDirectory: URL? = nil,
        environment: [String: String]? = nil,
        stdin: Stream = .null, stdout: Stream = .pipe, stderr: Stream = .pipe
    ) throws {
        _ = Self.ignoreBrokenPipes
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { childEnds.forEach { _ = close($0) } }

        func wire(_ stream: Stream, to target: Int32, childReads: Bool) throws -> FileHandle? {
            switch stream {
            case .inherit:
                return nil
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return nil
            case .file(let url):
                let flags = childReads ? O_RDONLY : (O_WRONLY | O_CREAT | O_APPEND)
                posix_spawn_file_actions_addopen(&actions, target, url.path, flags, 0o644)
                return nil
            case .closedPipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                _ = close(childReads ? ends[1] : ends[0])
                let childEnd = childReads ? ends[0] : ends[1]
                _ = fcntl(childEnd, F_SETFD, FD_CLOEXEC)
                childEnds.append(childEnd)
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                return nil
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                // Close-on-exec, so no other child inherits them (ours close everything above 2 anyway).
                ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                let (childEnd, ourEnd) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(childEnd)
                // dup2 clears close-on-exec on the copy the child keeps.
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                return FileHandle(fileDescriptor: ourEnd, closeOnDealloc: true)
            }
        }
        standardInput = try wire(stdin, to: STDIN_FILENO, childReads: true)
        standardOutput = try wire(stdout, to: STDOUT_FILENO, childReads: false)
        standardError = try wire(stderr, to: STDERR_FILENO, childReads: false)
        GNUSpawnActions.closeFrom(&actions, 3)
        if let workingDirectory {
            GNUSpawnActions.changeDirectory(&actions, workingDirectory.path)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Dispatch's worker threads block signals the child would otherwise inherit blocked.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        // A test process that ignores SIGPIPE (as servers do) would pass that on; the child starts default.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = [executable] + arguments
        // A crashing child's Swift backtracer is a process of its own that inherits the child's sockets; when a
        // test then kills the child, the orphaned backtracer kept them open and a client blocked reading one
        // waited for ever (seen twice under `cloudant serve` kill tests). Without it a crash closes them at once.
        var variables = environment ?? ProcessInfo.processInfo.environment
        if variables["SWIFT_BACKTRACE"] == nil { variables["SWIFT_BACKTRACE"] = "enable=no" }
        let env = variables.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let result = withCStrings(argv) { argvPointers in
            withCStrings(env) { envPointers in
                posix_spawn(&child, executable, &actions, &attributes, argvPointers, envPointers)
            }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        pid = child
    }

    /// Sends `signal` to the child (nothing once it has been reaped).
    public func send(_ signal: Int32) {
        lock.withLock {
            if termination == nil { _ = kill(pid, signal) }
        }
    }

    /// True until the child has ended and been reaped.
    public var isRunning: Bool {
        lock.withLock {
            if termination != nil { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            termination = Self.termination(of: status)
            return false
        }
    }

    /// Waits for the child to end and reaps it.
    @discardableResult
    public func wait() -> Termination {
        if let ended = lock.withLock({ termination }) { return ended }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return lock.withLock {
            // `isRunning` may have reaped it meanwhile; the first answer stands.
            if termination == nil { termination = Self.termination(of: status) }
            return termination!
        }
    }

    /// A child that exits before reading all its input must not kill the test process with SIGPIPE; the
    /// write fails with EPIPE instead.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private static func termination(of status: Int32) -> Termination {
        let signal = status & 0x7f
        if signal == 0 { return Termination(status: (status >> 8) & 0xff, signal: nil) }
        return Termination(status: 128 + signal, signal: signal)
    }

    deinit {
        if lock.withLock({ termination }) == nil {
            _ = kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStrings<Result>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// glibc's spawn actions that its headers declare only under `_GNU_SOURCE` (which Swift's Glibc module does
/// not define), looked up by name: `closefrom` (glibc 2.34) and `chdir` (glibc 2.29).
private enum GNUSpawnActions {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else {
            fatalError("this glibc has no \(name); ChildProcess needs glibc 2.34 or later")
        }
        return unsafeBitCast(address, to: type)
    }

    static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        _ = symbol("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)(&actions, lowest)
    }

    static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, _ path: String) {
        _ = symbol("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self)(&actions, path)
    }
}
