import Testing
import CloudantBase
@testable import CloudantStore

@Suite struct DatabaseKeyTests {
    @Test func rawKeyMustBeExactly32Bytes() throws {
        _ = try DatabaseKey(rawBytes: [UInt8](repeating: 7, count: 32))
        for count in [0, 16, 31, 33, 64] {
            #expect { try DatabaseKey(rawBytes: [UInt8](repeating: 7, count: count)) } throws: { error in
                (error as? CloudantError)?.code == .invalidEncryptionKey
            }
        }
    }

    @Test func passphraseKeyIsDeterministicForASaltAndDiffersAcrossSalts() throws {
        let salt = [UInt8](repeating: 1, count: 16)
        let rounds = 210_000 // the minimum, to keep a debug-build test quick; apps use the default
        let first = try DatabaseKey(passphrase: "correct horse", salt: salt, rounds: rounds)
        let again = try DatabaseKey(passphrase: "correct horse", salt: salt, rounds: rounds)
        let otherSalt = try DatabaseKey(passphrase: "correct horse", salt: [UInt8](repeating: 2, count: 16), rounds: rounds)
        let bytes = { (key: DatabaseKey) in key.withUnsafeBytes { Array($0) } }
        #expect(bytes(first).count == 32)
        #expect(bytes(first) == bytes(again))
        #expect(bytes(first) != bytes(otherSalt))
    }

    @Test func passphraseKeyRejectsShortSaltAndTooFewRounds() {
        #expect(throws: CloudantError.self) { try DatabaseKey(passphrase: "p", salt: [1, 2, 3]) }
        #expect(throws: CloudantError.self) {
            try DatabaseKey(passphrase: "p", salt: [UInt8](repeating: 1, count: 16), rounds: 1_000)
        }
    }

    @Test func randomKeysDiffer() {
        let bytes = { (key: DatabaseKey) in key.withUnsafeBytes { Array($0) } }
        #expect(bytes(.random()) != bytes(.random()))
    }
}
