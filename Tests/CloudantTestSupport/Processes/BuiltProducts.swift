public import Foundation

/// The folder SwiftPM builds the test binary and the package's executables into, where a test finds `cloudant`
/// and the other programs it runs as a user would.
public enum BuiltProducts {
    /// The folder of the running test binary (`.build/debug`): on Linux the test runner is an executable there.
    public static let folder: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent()

    /// The built executable `name` (a product or executable target the test target depends on).
    public static func executable(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// The `cloudant` command-line tool.
    public static var cloudant: URL { executable("cloudant") }
}
