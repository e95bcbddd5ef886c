internal import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// Threads of our own under a name the system shows (`top -H`, `gdb`, `/proc/<pid>/task/<tid>/comm`).
///
/// Why not `Thread.name` alone: on Linux, swift-corelibs-foundation does not apply a name given before
/// `start()`, and applies one given from inside the new thread only when `start()` has already returned on
/// the thread that started it. Otherwise the new thread keeps its creator's name (a Dispatch worker's
/// `…oot.default-qos`, Linux keeping a name's last 15 bytes there), and `Thread.name` reads that back. So the
/// new thread names itself through the kernel's own interface, which has no such window.
package enum NamedThread {
    /// Starts a thread named `name` (Linux keeps its first 15 bytes) that runs `body`; the name is in place
    /// before `body` starts.
    package static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.start()
    }

    /// Names the calling thread. On Linux only through the kernel: Foundation's setter there is the racy
    /// one above, and its getter reads the kernel's name back anyway.
    package static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        // proc(5): a thread may write its own name to /proc/thread-self/comm; longer names are cut to 15 bytes.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        #else
        Thread.current.name = name
        #endif
    }

    /// The calling thread's name as the system knows it.
    package static var currentName: String? {
        #if os(Linux)
        guard let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return nil }
        return name.trimmingCharacters(in: .newlines)
        #else
        return Thread.current.name
        #endif
    }
}
