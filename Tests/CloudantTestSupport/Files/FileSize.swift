import Foundation

/// The size in bytes of the file at `path`, 0 when there is none yet (a log or journal not yet written counts
/// as empty, which is what a test waiting for a file to grow wants).
public func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}
