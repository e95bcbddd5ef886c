internal import CJavaScriptCore
internal import CloudantCore

/// The JavaScriptCore library, opened when the first engine instance is made (see `CJavaScriptCore.h`): a
/// process that links the engine but runs no JavaScript (the CLI importing health data, a replication) never
/// maps it, nor ICU and GLib behind it.
enum JavaScriptCoreLibrary {
    /// Opens the library once per process.
    ///
    /// - Throws: `CloudantError` `.designFunctionFailed`, named `os_process_error` (what CouchDB answers when
    ///   its JavaScript process cannot start), with the loader's reason, when the library is missing or
    ///   lacks a function the engine calls.
    static func load() throws {
        guard cjs_load() else {
            let reason = cjs_load_failure().map { String(cString: $0) } ?? "unknown reason"
            throw DesignFunctionError(
                name: "os_process_error",
                reason: "The JavaScript engine (JavaScriptCore, Debian's libjavascriptcoregtk-4.1-0) could not be loaded: \(reason)",
                isFatal: true
            ).error
        }
    }

    /// The library's version, `major.minor.micro`; nil when it cannot be loaded.
    static var version: String? {
        var parts: [UInt32] = [0, 0, 0]
        guard cjs_version(&parts) else { return nil }
        return parts.map(String.init).joined(separator: ".")
    }
}
