@testable import CloudantStore
import Foundation
import Testing

@Suite("gzip (zlib via compress-nio)")
struct GzipTests {
    /// CouchDB compresses with zlib at level 8, a 32 KB window and memory level 8; the bytes must be the
    /// same, or digests of compressible attachments would differ between CouchDB and us.
    @Test func encodingHelloWorldAtLevel8GivesCouchDBsBytes() {
        #expect(Gzip.encode(Array("hello world".utf8), level: 8) == Self.couchHelloWorld)
    }

    @Test func encodedDataDecodesBackForEveryLevel() throws {
        let text = Array(String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 500).utf8)
        for level in 1...9 {
            let encoded = try #require(Gzip.encode(text, level: level))
            #expect(encoded.count < text.count / 5)
            #expect(try Gzip.decode(encoded, limit: text.count) == text)
        }
    }

    /// What CouchDB stores for "hello world" as `text/plain`: its MD5 is CouchDB's digest.
    static let couchHelloWorld: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x57, 0x28, 0xCF,
        0x2F, 0xCA, 0x49, 0x01, 0x00, 0x85, 0x11, 0x4A, 0x0D, 0x0B, 0x00, 0x00, 0x00,
    ]

    /// 300 lines compressed by zlib at level 6 (dynamic Huffman blocks).
    private static let dynamicBase64 =
        "H4sIAAAAAAAAA53bTZIcRRAF4b1O0UeozPrnNoAGEAwaEAgBp8egnwdrj7UsTWYRn3X1eFa/fvj48li+evz+w8vj188fvv3p8c2n"
        + "ty8fH9+9/fn48fPPv/z2ePvj5dN///z69d9/Pd6/ff9Y3r3+e2q4U+fz1HSnxvPU6k5dz1ObOzWfp3Z36n6eOtyp9XnqlNPI6C93"
        + "bHueuuV/ltkPyWPPMeljZPxDCjlyTBIBsTQSxUMiYZRSSRwPyYRJSiaRPKSTUJ6SCZandBLM036QZAVTOonmKZ2geUoo0TwlFGYp"
        + "ofCZLKEwSgklmlcJJZNcpZNoXqWTaF4lEzSv0kk0r/bzhOeidBLNq33usAMJJZpXCSWz3CSUaN7sgyfHJBS+Y0gomeQmnUTzJp1E"
        + "8yaZoHmTTqJ5s58nrEA6iebdPnn4oiehRPMuoWSWu4QSzbt98OSYhBLNu4TCJKWTaN6lk2je7RfZbOCQTqL5sJ8nWcEhnUTzYZ88"
        + "2cEhoUTzIaEwSwklmg/74MkxCSWaDwklkzylk2g+pRP+BLRfZLOBUzqJ5tN+nmQFp3QSzad98rADCSWaTwmFWUoo0XzZB0+OSSjR"
        + "fEkomeQlnUTzJZ1E82W/yFI0pJNovuznCSuQTqL5sk+e7OCWUKL5llAyy1tCiebbPnhyTEKJ5ltCYZLSSTTf0kk03/aLLBuQTjZK"
        + "m/1AqUQnpdDoFvvwIS0tEguVbpFayHSL5EKnW+zzh3MSDKVukWJqnlIMrc7G2ZVz9ksti7B5Ftq2zxZtW2grP9snEauwkRbattLW"
        + "RCUZaNtOy0BtqIW2DbXV86UYaNtSC22dalmEbbXQtrG2aNtcC23da2sVkkzdrTRvCG2zhbaNtgzUVlto22rLPG22hbbNttDW3bYW"
        + "0bsxHLbcFm3bbqGt4y2rsPkW2rbf1r1h8+LQFtwaaPPq0Cbcmmfz8tA2XGjriMsibMWFts24RduGXGjrkssqbMuFto25NdHeLeKw"
        + "ObcG2rtHHLbnMk8bdKFtgy60ddFlETbpQts23aJtqy60ddatVfQuFIctu0zUpl1o27bLQG3crRc+ereKw9ZdaNu6C22dd2sRvZvF"
        + "YQNv0baJF9q68dbLN73bxWEzLxO1nRfaNvQyUFt6oW1Lb82zd8c4bOqFtm69LMLGXmjb2lu0be+Ftg6+rMImX2jb5lsT7V02Dlt9"
        + "a6C968Zhsy/viNnse3Oud+M4dfXl9TJbfXlXz1bfelnPZl/e1tPZt1bRu3ectvvWRHs3j9N2XwZqu+/Fud7l47TZF9q2+kJbV996"
        + "C7V3ATlt9S3aNvtCW2dfVmG7L7Rt92WitvtC23ZfBmq7L7Rt9q159q4ip62+0NbVtxbRu42ctvr+/4p17zZy6uzLKmz3hbbtvkzU"
        + "dl9o2+5bA+3dRk6bfWuevdvIaasvtHX1ZRG2+kLbVt+ibbNv/XygeRs5bfeFtu2+NdHebeS03ZeB2u4LbZt96/cYvdvIaasvtHX1"
        + "ZRG2+kLbVt+ibbMvtHX2rVX0biOn7b5M1HZfaNvuy0Bt94W2zb7M02ZfaNvqC21dfWsRvdvIaatv0bbZF9o6+7IK232hbbtv/e6r"
        + "dxs5bfetgfZuI6fNvjXP3m3ktNUX2rr6sghbfaFtq2/RttkX2jr7sgrbfaFtu29NtPubxuaPGm33hbbNvszTZl9o2+oLbV19WYSt"
        + "vtC21bdo2+wLbZ19axW928hpu+/y7h/j1yTWd0EAAA=="

    private static let lines = (0..<300).map { "line \($0): the quick brown fox jumps over the lazy dog \($0 * 7 % 13)\n" }.joined()

    @Test func couchDBsGzipOfHelloWorldDecodes() throws {
        #expect(try Gzip.decode(Self.couchHelloWorld, limit: 100) == Array("hello world".utf8))
        #expect(CRC32.checksum(Array("hello world".utf8)) == 0x0D4A_1185)
    }

    @Test func dynamicHuffmanBlocksDecode() throws {
        let data = try #require(Data(base64Encoded: Self.dynamicBase64))
        #expect(try Gzip.decode(Array(data), limit: 1 << 20) == Array(Self.lines.utf8))
    }

    @Test func storedBlocksAndHeaderFieldsDecode() throws {
        let payload = Array("stored, not compressed".utf8)
        let length = UInt16(payload.count)
        var member: [UInt8] = [0x1F, 0x8B, 0x08, 0x08, 0, 0, 0, 0, 0, 0xFF] + Array("name.txt".utf8) + [0]
        member += [0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + payload
        let crc = CRC32.checksum(payload)
        member += (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
        member += [UInt8(payload.count), 0, 0, 0]
        #expect(try Gzip.decode(member, limit: 100) == payload)
    }

    @Test func damagedTruncatedOrOversizedDataIsAnErrorNotATrap() throws {
        for end in 0..<Self.couchHelloWorld.count {
            #expect(throws: Gzip.Failure.self) { try Gzip.decode(Array(Self.couchHelloWorld[..<end]), limit: 100) }
        }
        #expect(throws: Gzip.Failure.self) { try Gzip.decode(Self.couchHelloWorld, limit: 5) }
        var damaged = Self.couchHelloWorld
        damaged[12] ^= 0x10
        #expect(throws: Gzip.Failure.self) { try Gzip.decode(damaged, limit: 100) }
        let data = Array(try #require(Data(base64Encoded: Self.dynamicBase64)))
        for index in stride(from: 10, to: data.count, by: 7) {
            var flipped = data
            flipped[index] ^= 0xA5
            _ = try? Gzip.decode(flipped, limit: 1 << 20)
        }
    }
}
