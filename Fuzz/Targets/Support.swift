// Shared by every fuzz target (compiled into each one; see Fuzz/build.py).
//
// A target checks invariants, not only "no crash": a broken invariant prints what broke (never the input,
// which libFuzzer saves as crash-<sha1> anyway) and aborts, which libFuzzer reports as a crash.

import Foundation

/// Aborts the fuzz run when `condition` is false, naming the invariant that broke.
func require(_ condition: @autoclosure () -> Bool, _ invariant: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz invariant broken: \(invariant())\n".utf8))
        abort()
    }
}

/// libFuzzer's return values: 0 keeps an input that found new coverage; -1 keeps it out of the corpus
/// (an input the target could not use, such as a selector target input that is not JSON).
let keepInput: CInt = 0
let rejectInput: CInt = -1
