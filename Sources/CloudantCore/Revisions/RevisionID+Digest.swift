extension RevisionID {
    /// How a revision keeps its hash.
    ///
    /// Nearly every hash is 32 lowercase hex digits (each one minted here or by CouchDB), kept as the 16 bytes
    /// they spell, in two integers: a decoded revision tree then holds no strings, so reading, hashing,
    /// comparing and writing back the tree of a long history allocates nothing per revision and reads no
    /// text. Any other hash is kept as its text: a replicated revision may carry any text, and a hash given
    /// verbatim in uppercase (``RevisionID/init(generation:hash:)``) reads back as it was given.
    ///
    /// A 32-digit lowercase hex hash is always `.hex`, never `.text`, so equal hashes have one form.
    enum Digest: Sendable {
        /// 32 lowercase hex digits, as the big-endian halves of the 16 bytes they spell.
        case hex(high: UInt64, low: UInt64)
        /// Any other hash, verbatim.
        case text(String)

        /// The digest of `hash`: `.hex` for 32 lowercase hex digits, `.text` otherwise.
        init(_ hash: String) {
            var contiguous = hash
            self = contiguous.withUTF8 { Self.hex($0, acceptingUppercase: false) } ?? .text(hash)
        }

        /// The digest of 16 raw bytes, as CouchDB stores a hex hash.
        ///
        /// - Precondition: `bytes` holds 16 bytes.
        init(bytes: UnsafeBufferPointer<UInt8>) {
            precondition(bytes.count == 16, "A hex revision hash is 16 bytes.")
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
            self = .hex(high: high, low: low)
        }

        /// The digest of 32 hex digits (either case when `acceptingUppercase`), or nil for any other text.
        static func hex(_ text: UnsafeBufferPointer<UInt8>, acceptingUppercase: Bool) -> Digest? {
            guard text.count == 32 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<32 {
                let character = text[index]
                let digit = character &- UInt8(ascii: "0")
                let letter = character &- UInt8(ascii: "a")
                let capital = character &- UInt8(ascii: "A")
                let nibble: UInt8
                if digit < 10 {
                    nibble = digit
                } else if letter < 6 {
                    nibble = letter &+ 10
                } else if acceptingUppercase, capital < 6 {
                    nibble = capital &+ 10
                } else {
                    return nil
                }
                if index < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
            }
            return .hex(high: high, low: low)
        }

        /// The hash as text: 32 lowercase hex digits, or the text kept verbatim.
        var text: String {
            switch self {
            case .text(let text): text
            case .hex(let high, let low):
                String(unsafeUninitializedCapacity: 32) { output in
                    Self.writeHex(high: high, low: low, into: output, at: 0)
                    return 32
                }
            }
        }

        /// Appends the 16 bytes of a hex digest and returns true; appends nothing for text.
        func appendBytes(to bytes: inout [UInt8]) -> Bool {
            guard case .hex(let high, let low) = self else { return false }
            withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { bytes.append(contentsOf: $0) }
            return true
        }

        /// Writes the 32 lowercase hex digits of `high` and `low` into `output` from `offset`.
        static func writeHex(high: UInt64, low: UInt64, into output: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
            for index in 0..<16 {
                let shift = UInt64(60 - 4 * index)
                output[offset + index] = hexDigit(UInt8(truncatingIfNeeded: high >> shift) & 0x0F)
                output[offset + 16 + index] = hexDigit(UInt8(truncatingIfNeeded: low >> shift) & 0x0F)
            }
        }

        private static func hexDigit(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }

        /// Orders digests as ``RevisionID``'s `<` orders hashes: two hex digests by their bytes (which is the
        /// order of their lowercase text too), any other pair by ``RevisionID/compareStoredHashes(_:_:)``.
        static func compare(_ lhs: Digest, _ rhs: Digest) -> Int {
            if case .hex(let leftHigh, let leftLow) = lhs, case .hex(let rightHigh, let rightLow) = rhs {
                if leftHigh != rightHigh { return leftHigh < rightHigh ? -1 : 1 }
                return leftLow == rightLow ? 0 : leftLow < rightLow ? -1 : 1
            }
            return RevisionID.compareStoredHashes(lhs.text, rhs.text)
        }
    }
}

extension RevisionID.Digest: Hashable {
    /// Equal when the bytes are: texts compare as UTF-8 bytes, not as Swift's canonically equivalent strings.
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.hex(let leftHigh, let leftLow), .hex(let rightHigh, let rightLow)): leftHigh == rightHigh && leftLow == rightLow
        case (.text(let left), .text(let right)): RevisionID.compareBytes(left, right) == 0
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .hex(let high, let low):
            hasher.combine(high)
            hasher.combine(low)
        case .text(let text):
            let hashedContiguously: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            }
            if hashedContiguously == nil {
                for byte in text.utf8 { hasher.combine(byte) }
            }
            // Terminates the variable-length bytes so adjacent values cannot run together.
            hasher.combine(text.utf8.count)
        }
    }
}
