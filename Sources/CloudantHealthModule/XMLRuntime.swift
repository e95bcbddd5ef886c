@preconcurrency internal import CLibXML2

/// Facts about the libxml2 the Health module parses CDA documents and GPX routes with.
public enum XMLRuntime {
    /// The version of the libxml2 library loaded at run time (for example `"2.9.14"`), which can differ
    /// from the headers the module was built against.
    public static var libxml2Version: String {
        // libxml2's `xmlParserVersion` global holds the version as digits (20914 for 2.9.14); in a
        // thread-enabled build it is a macro over this accessor, which Swift cannot import.
        guard let digits = __xmlParserVersion()?.pointee, let number = Int(String(cString: digits)) else { return "unknown" }
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }
}
