internal import _FoundationICU

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#endif

/// ICU's root collator: the string order CouchDB collates view keys, Mango comparisons and `sort` with.
///
/// `couch_ejson_compare` opens it with `ucol_open("")` and changes no attribute, so strings compare by the
/// CLDR root collation at tertiary strength: punctuation not ignorable, no normalization pass, case and accents
/// deciding only between strings whose base letters are equal. This is the same ICU: the one Foundation
/// carries on Linux (`_FoundationICU`, already in every process that imports Foundation), so the order is
/// ICU's own rather than an imitation of it.
///
/// ICU documents a collator as safe to clone from many threads, and each thread compares with a clone of its
/// own (as CouchDB keeps one collator per scheduler thread), so no call here takes a lock.
enum ICUCollator {
    /// The collator every thread clones.
    private nonisolated(unsafe) static let root: OpaquePointer = {
        var status = U_ZERO_ERROR
        guard let collator = swift_ucol_open("", &status), status.rawValue <= U_ZERO_ERROR.rawValue else {
            fatalError("ICU's root collator could not be opened (UErrorCode \(status.rawValue))")
        }
        return collator
    }()

    /// The thread-specific slot of each thread's clone; a thread's clone is closed when the thread ends.
    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { clone in
            if let clone { swift_ucol_close(OpaquePointer(clone)) }
        }
        precondition(created == 0, "no thread-specific key for ICU collators")
        return key
    }()

    /// This thread's collator.
    static var current: OpaquePointer {
        if let clone = pthread_getspecific(slot) { return OpaquePointer(clone) }
        var status = U_ZERO_ERROR
        guard let clone = swift_ucol_clone(root, &status), status.rawValue <= U_ZERO_ERROR.rawValue else {
            return root  // Out of memory for a clone: the shared collator still answers correctly.
        }
        pthread_setspecific(slot, UnsafeRawPointer(clone))
        return clone
    }

    /// `-1`, `0` or `1` as ICU orders two strings (`ucol_strcollUTF8`, the UTF-8 twin of CouchDB's
    /// `ucol_strcollIter` over UTF-8 iterators).
    static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in
                var status = U_ZERO_ERROR
                let result = swift_ucol_strcollUTF8(
                    current, left.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                    Int32(clamping: left.count),
                    right.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                    Int32(clamping: right.count), &status)
                // Swift strings are valid UTF-8, so ICU has nothing to refuse; bytes decide if it ever does.
                guard status.rawValue <= U_ZERO_ERROR.rawValue else {
                    return left.elementsEqual(right) ? 0 : (left.lexicographicallyPrecedes(right) ? -1 : 1)
                }
                return Int(result.rawValue)
            }
        }
    }

    /// Appends ICU's sort key of `string`, with its terminating `0x00`: byte order of sort keys is the
    /// order of ``compare(_:_:)``, and no byte before the terminator is `0x00`.
    static func appendSortKey(of string: String, to key: inout [UInt8]) {
        let units = Array(string.utf16)
        let start = key.count
        var capacity = units.count * 3 + 16
        while true {
            key.append(contentsOf: repeatElement(0, count: capacity))
            let length = units.withUnsafeBufferPointer { source in
                key.withUnsafeMutableBufferPointer { target in
                    Int(swift_ucol_getSortKey(
                        current, source.baseAddress, Int32(clamping: source.count), target.baseAddress! + start,
                        Int32(clamping: capacity)))
                }
            }
            if length <= capacity {
                key.removeLast(capacity - length)
                return
            }
            // Too small: ICU said how long the key is.
            key.removeLast(capacity)
            capacity = length
        }
    }

    /// ICU's library version, as `u_getVersion` gives it (`"76.1"`).
    static let libraryVersion: String = version { swift_u_getVersion($0) }

    /// The Unicode Collation Algorithm version of the collator (`ucol_getUCAVersion`).
    static let algorithmVersion: String = version { swift_ucol_getUCAVersion(root, $0) }

    /// The collator's version (`ucol_getVersion`): it changes whenever ICU orders some pair of strings
    /// differently, which is when stored sort keys must be made again.
    static let collatorVersion: String = version { swift_ucol_getVersion(root, $0) }

    /// A `UVersionInfo` written as CouchDB's `couch_util:version_to_binary/1` writes it: the numbers joined by
    /// dots, trailing zeros dropped.
    private static func version(_ read: (UnsafeMutablePointer<UInt8>) -> Void) -> String {
        var parts = [UInt8](repeating: 0, count: 4)
        parts.withUnsafeMutableBufferPointer { read($0.baseAddress!) }
        while parts.count > 1, parts.last == 0 { parts.removeLast() }
        return parts.map(String.init).joined(separator: ".")
    }
}
