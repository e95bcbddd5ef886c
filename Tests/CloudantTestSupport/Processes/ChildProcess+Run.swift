public import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// What a child printed, and how it ended.
    public struct Output: Sendable {
        /// The exit status (`128 + signal` when a signal ended it).
        public var status: Int32
        /// Everything written to standard output.
        public var stdout: Data
        /// Everything written to standard error.
        public var stderr: Data
    }

    /// Runs `executable arguments…` to its end, feeding it `input` and collecting both outputs; the waiting
    /// happens on a thread of its own (see ``onOwnThread(_:)``).
    /// - Throws: `POSIXError` when the child cannot be started or its pipes fail.
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, workingDirectory: URL? = nil,
        environment: [String: String]? = nil
    ) async throws -> Output {
        try await onOwnThread {
            try runBlocking(
                executable, arguments, input: input, workingDirectory: workingDirectory, environment: environment)
        }
    }

    /// ``run(_:_:input:workingDirectory:environment:)`` on the calling thread, for code that is already on a
    /// thread of its own.
    ///
    /// Input and outputs are moved together with `poll`, so a child that writes a lot before it reads (or
    /// fills standard error while this side waits on standard output) never deadlocks against the test.
    /// - Throws: `POSIXError` when the child cannot be started or its pipes fail.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], input: Data? = nil, workingDirectory: URL? = nil,
        environment: [String: String]? = nil
    ) throws -> Output {
        let child = try ChildProcess(
            executable, arguments, workingDirectory: workingDirectory, environment: environment, stdin: .pipe)
        var pending = input ?? Data()
        var inputFD: Int32? = child.standardInput?.fileDescriptor
        var outputs: [Int32: WritableKeyPath<Collected, Data>] = [:]
        if let fd = child.standardOutput?.fileDescriptor { outputs[fd] = \.stdout }
        if let fd = child.standardError?.fileDescriptor { outputs[fd] = \.stderr }
        var collected = Collected()
        if pending.isEmpty {
            try? child.standardInput?.close()
            inputFD = nil
        }
        while !outputs.isEmpty || inputFD != nil {
            var fds = outputs.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if let fd = inputFD { fds.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)) }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 else {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == inputFD {
                    let written = pending.withUnsafeBytes { write(entry.fd, $0.baseAddress, min($0.count, 65_536)) }
                    if written > 0 { pending.removeFirst(written) }
                    if written < 0 || pending.isEmpty {
                        try? child.standardInput?.close()
                        inputFD = nil
                    }
                } else if let path = outputs[entry.fd] {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    let count = read(entry.fd, &buffer, buffer.count)
                    if count > 0 {
                        collected[keyPath: path].append(contentsOf: buffer[0..<count])
                    } else if count == 0 || errno != EINTR {
                        outputs[entry.fd] = nil
                    }
                }
            }
        }
        return Output(status: child.wait().status, stdout: collected.stdout, stderr: collected.stderr)
    }

    /// Waits for the child to end (on a thread of its own) and reaps it.
    @discardableResult
    public func exit() async -> Termination {
        await onOwnThread { self.wait() }
    }

    /// The two outputs gathered while a child runs.
    private struct Collected {
        var stdout = Data()
        var stderr = Data()
    }
}
