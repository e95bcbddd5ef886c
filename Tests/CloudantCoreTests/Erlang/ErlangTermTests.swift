import CloudantCore
import Testing

/// The terms CouchDB writes into its messages with `io_lib:format`'s `~p` and `~w`.
@Suite("Erlang terms of JSON values")
struct ErlangTermTests {
    @Test func stringsAreBinariesWrittenAsTextWhenPrintableAndAsBytesOtherwise() {
        #expect(ErlangTerm.format("foo", printable: true) == #"<<"foo">>"#)
        #expect(ErlangTerm.format("a\"b\\c\n", printable: true) == #"<<"a\"b\\c\n">>"#)
        #expect(ErlangTerm.format("ab", printable: false) == "<<97,98>>")
        #expect(ErlangTerm.format("é", printable: true) == "<<195,169>>")
        #expect(ErlangTerm.format("", printable: false) == "<<>>")
    }

    @Test func objectsArraysAndAtomsAreWrittenAsTheTermsJiffyDecodesThemInto() {
        let value: JSONValue = ["a": [1, 2.5, true, false, .null], "b": [:]]
        #expect(ErlangTerm.format(value, printable: true) == #"{[{<<"a">>,[1,2.5,true,false,null]},{<<"b">>,{[]}}]}"#)
    }

    @Test func floatsTakeTheShorterOfThePlainAndTheExponentForm() {
        #expect(ErlangTerm.float(1) == "1.0")
        #expect(ErlangTerm.float(1.5) == "1.5")
        #expect(ErlangTerm.float(100) == "100.0")
        #expect(ErlangTerm.float(1000) == "1.0e3")
        #expect(ErlangTerm.float(0.001) == "0.001")
        #expect(ErlangTerm.float(-2.5e-7) == "-2.5e-7")
    }
}
