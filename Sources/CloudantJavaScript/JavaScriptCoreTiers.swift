internal import CJavaScriptCore
internal import Foundation

/// The compiler tiers JavaScriptCore runs design functions with: its interpreter, baseline JIT and DFG, without
/// the FTL tier, set once before the process's first JavaScriptCore VM starts (its options are read then).
///
/// Measured building a view with a one-line map over 1,000,000 documents (`cloudant view`, release build):
/// without FTL the build used the same CPU time (15–17 s either way) and peaked about 4 MB lower (97.8 MB
/// against 101.5 MB); FTL compiles the map and the query server's own functions into larger code without
/// making calls over small documents faster. Without DFG too the peak fell to 92 MB but the build took 25 %
/// more CPU time, so DFG stays.
///
/// WebKitGTK's library sets options through `jsc_options_set_boolean`; Apple's JavaScriptCore framework has no
/// such call and keeps its own defaults. A process that names the option in its environment
/// (`JSC_useFTLJIT=true`) keeps what it named.
enum JavaScriptCoreTiers {
    /// Applies the tiers once; call after ``JavaScriptCoreLibrary/load()`` and before creating a context group.
    static func configure() { _ = applied }

    private static let applied: Bool = {
        guard ProcessInfo.processInfo.environment["JSC_useFTLJIT"] == nil else { return false }
        return cjs_set_option("useFTLJIT", false)
    }()

    /// Whether JavaScriptCore's option `name` is on; nil where the library cannot be loaded, has no options API
    /// or no such option.
    static func isOn(_ name: String) -> Bool? {
        var value = false
        return cjs_get_option(name, &value) ? value : nil
    }
}
