@preconcurrency internal import CLibXML2
internal import Foundation

/// Makes libxml2 refuse every external resource (entities, DTDs, XIncludes) for the whole process.
///
/// libxml2's external-entity loader is process-wide. This module is the only one that links libxml2
/// (see Package.swift), so replacing it here cannot break another component, and a loader that loads
/// nothing is the one guarantee that holds whatever options a future call passes.
enum ExternalEntityGuard {
    /// How many times libxml2 asked for an external resource since launch; tests use it to prove that
    /// hostile documents were refused rather than fetched.
    static let refusals = RefusalCounter()

    /// Installs the refusing loader and initialises libxml2 once; cheap to call before every parse.
    static func install() { _ = installed }

    private static let installed: Bool = {
        xmlInitParser()
        xmlSetExternalEntityLoader { _, _, _ in
            ExternalEntityGuard.refusals.increment()
            return nil
        }
        return true
    }()
}

/// Counts refused loads. (`Synchronization.Atomic` would need macOS 15; the package supports macOS 14.)
final class RefusalCounter: @unchecked Sendable {
    // `lock` protects `count`.
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
