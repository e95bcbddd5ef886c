internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Writes to standard output and standard error with `write(2)`, because Foundation's `FileHandle.write(_:)`
/// traps on any failure: a reader that went away (`cloudant changes … | head -1`) crashed the command with a
/// backtrace instead of ending it.
enum StandardStreams {
    /// What to do when the reader of standard output is gone.
    enum ClosedOutput {
        /// End the command as SIGPIPE ends a Unix tool: at once, quietly, status 141 (128 + SIGPIPE).
        case exit
        /// Carry on: a server keeps serving when whoever read its first line stopped reading.
        case ignore
    }

    /// Writes `bytes` to standard output.
    static func output(_ bytes: some Collection<UInt8>, whenClosed: ClosedOutput = .exit) {
        guard !write(bytes, to: STDOUT_FILENO), whenClosed == .exit else { return }
        Glibc.exit(128 + SIGPIPE)
    }

    /// Writes `bytes` to standard error; a closed standard error leaves nowhere to say anything, so nothing is.
    static func error(_ bytes: some Collection<UInt8>) {
        _ = write(bytes, to: STDERR_FILENO)
    }

    /// Writes all of `bytes`; false when the descriptor refused them (a closed pipe, a full disk).
    private static func write(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Bool {
        let buffer = Array(bytes)
        return buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
