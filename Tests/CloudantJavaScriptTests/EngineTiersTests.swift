import CloudantCore
@testable import CloudantJavaScript
import Foundation
import Testing

@Suite("JavaScriptCore's compiler tiers")
struct EngineTiersTests {
    /// Without FTL a view build peaks about 4 MB lower at the same speed (see `JavaScriptCoreTiers`).
    @Test func designFunctionsRunWithoutTheFTLTierUnlessTheEnvironmentNamesIt() throws {
        _ = try map(makeEngine(), ["function(doc) { emit(doc._id, null); }"], [["_id": "a"]])
        let named = ProcessInfo.processInfo.environment["JSC_useFTLJIT"]
        #expect(JavaScriptCoreTiers.isOn("useFTLJIT") == (named.map { $0 == "true" || $0 == "1" } ?? false))
        // The optimising tier below it stays: without it the same build took a quarter more time.
        #expect(JavaScriptCoreTiers.isOn("useDFGJIT") == true)
    }
}
