import CloudantCore
import Testing

/// The bytes are those Erlang/OTP's `term_to_binary(Term, [{minor_version, 1}])` writes for the same terms.
@Suite("Erlang external term format")
struct ErlangTermWriterTests {
    static func bytes(_ write: (inout ErlangTermWriter) -> Void) -> [UInt8] {
        var writer = ErlangTermWriter()
        write(&writer)
        return writer.bytes
    }

    @Test func integersUseTheSmallestEncodingErlangUses() {
        #expect(Self.bytes { $0.writeInteger(0) } == [97, 0])
        #expect(Self.bytes { $0.writeInteger(255) } == [97, 255])
        #expect(Self.bytes { $0.writeInteger(256) } == [98, 0, 0, 1, 0])
        #expect(Self.bytes { $0.writeInteger(-1) } == [98, 255, 255, 255, 255])
        #expect(Self.bytes { $0.writeInteger(2_147_483_648) } == [110, 4, 0, 0, 0, 0, 128])
        #expect(Self.bytes { $0.writeInteger(-2_147_483_649) } == [110, 4, 1, 1, 0, 0, 128])
        #expect(Self.bytes { $0.writeInteger(Int64.min) } == [110, 8, 1, 0, 0, 0, 0, 0, 0, 0, 128])
        // 2^64 = 1 followed by eight zero bytes, little-endian.
        #expect(Self.bytes { $0.writeInteger(decimal: "18446744073709551616") } == [110, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(Self.bytes { $0.writeInteger(decimal: "-300") } == [98, 255, 255, 254, 212])
        #expect(!Self.bytes { _ = $0.writeInteger(decimal: "12a") }.contains(110))
    }

    @Test func floatsAreTheirIEEEBitsBigEndian() {
        #expect(Self.bytes { $0.writeFloat(1.5) } == [70, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        #expect(Self.bytes { $0.writeFloat(-0.0) } == [70, 0x80, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func listsOfBytesAreStringsAndOtherListsAreLists() {
        #expect(Self.bytes { $0.writeEJSON([1, 2, 255]) } == [107, 0, 3, 1, 2, 255])
        #expect(Self.bytes { $0.writeEJSON([1, 256]) } == [108, 0, 0, 0, 2, 97, 1, 98, 0, 0, 1, 0, 106])
        #expect(Self.bytes { $0.writeEJSON([.number(.double(1.0))]) } == [108, 0, 0, 0, 1, 70, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 106])
        #expect(Self.bytes { $0.writeEJSON([]) } == [106])
    }

    @Test func objectsAreOneTuplesOfProplistsInWrittenOrder() {
        #expect(
            Self.bytes { $0.writeEJSON(["a": true, "b": .null] as JSONValue) } == [
                104, 1, 108, 0, 0, 0, 2,
                104, 2, 109, 0, 0, 0, 1, 97, 100, 0, 4, 116, 114, 117, 101,
                104, 2, 109, 0, 0, 0, 1, 98, 100, 0, 4, 110, 117, 108, 108,
                106,
            ])
        #expect(Self.bytes { $0.writeEJSON(JSONObject()) } == [104, 1, 106])
    }

    @Test func stringsAreBinariesOfTheirUTF8() {
        #expect(Self.bytes { $0.writeEJSON("é") } == [109, 0, 0, 0, 2, 0xC3, 0xA9])
    }
}
