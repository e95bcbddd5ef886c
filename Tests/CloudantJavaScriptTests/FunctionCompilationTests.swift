import CloudantCore
@testable import CloudantJavaScript
import Testing

@Suite("Compiling design function sources")
struct FunctionCompilationTests {
    @Test(arguments: [
        "function(doc) { emit(doc._id, 1); }",
        "function(doc) { emit(doc._id, 1); };",
        "  // leading comment\n function (doc) { emit(doc._id, 1) } /* trailing */ ",
        "(function(doc) { emit(doc._id, 1); })",
        "doc => emit(doc._id, 1)",
        "var helper = 1; function(doc) { emit(doc._id, helper); }",
        "function(doc) { var re = /}/; if (re.test('}')) emit(doc._id, 1); }",
        "function(doc) { var s = \"{\" + `${'}'}`; emit(doc._id, s.length - 1); }",
        "async function (doc) { }",
    ])
    func sourcesCouchDBAcceptsCompile(source: String) throws {
        try makeEngine().compile(source)
    }

    @Test func anAnonymousFunctionStatementRunsAsTheFunction() throws {
        let rows = try map(makeEngine(), ["var helper = 7; function(doc) { var re = /}/; emit(doc._id, helper); };"], [["_id": "a"]])
        #expect(rows[0][0] == [EmittedRow(key: "a", value: 7)])
    }

    @Test func aSyntaxErrorIsACompilationErrorNamingTheSource() throws {
        let error = designFailure { try makeEngine().compile("function(doc) { emit(doc._id, ; }") }
        #expect(error?.name == "compilation_error")
        #expect(error?.reason.hasPrefix("SyntaxError") == true)
        #expect(error?.reason.hasSuffix("(function(doc) { emit(doc._id, ; })") == true)
    }

    @Test func aSourceThatIsNoFunctionIsRefusedAsCouchDBRefusesIt() throws {
        for source in ["1 + 1", "function named(doc) { }", "var x = 1;"] {
            let error = designFailure { try makeEngine().compile(source) }
            #expect(error?.name == "compilation_error")
            #expect(error?.reason == "Expression does not eval to a function. (\(source))")
        }
    }

    @Test func theRewriteParenthesisesTheLastTopLevelAnonymousFunctionOnly() {
        #expect(FunctionSource.parenthesisingLastAnonymousFunction("function(a) { return function(b) {}; }") == "(function(a) { return function(b) {}; })")
        #expect(FunctionSource.parenthesisingLastAnonymousFunction("x = 1; function (d) {} ; ") == "x = 1; (function (d) {}) ; ")
        #expect(FunctionSource.parenthesisingLastAnonymousFunction("'function(){}'") == nil)
        #expect(FunctionSource.parenthesisingLastAnonymousFunction("function named() {}") == nil)
        #expect(FunctionSource.parenthesisingLastAnonymousFunction("// function(){}\n1") == nil)
    }
}
