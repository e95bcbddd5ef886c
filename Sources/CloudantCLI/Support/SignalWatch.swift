internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// SIGINT and SIGTERM for a command that stops cleanly: each signal that arrives is handed to a closure on a
/// thread of its own, where it may do anything (the signal handler itself only writes one byte to a pipe, the
/// one thing a handler may safely do).
///
/// The handlers are installed with `sigaction`, which replaces an inherited disposition: a shell starts a
/// background job of a script with SIGINT ignored, and a replication started that way must still stop on it.
enum SignalWatch {
    /// The pipe's write end, set once before the handlers are installed and never changed after.
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    /// Starts watching; `handle` gets each signal's number. Call once.
    static func start(_ signals: [Int32] = [SIGINT, SIGTERM], _ handle: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        pipeWriteEnd = ends[1]
        let readEnd = ends[0]
        let thread = Thread {
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) == 1 { handle(Int32(byte)) }
        }
        thread.start()
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(SignalWatch.pipeWriteEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in signals {
            sigaction(signal, &action, nil)
            sigaddset(&unblock, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }
}
