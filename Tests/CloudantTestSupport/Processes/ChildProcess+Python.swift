public import Foundation

extension ChildProcess {
    /// A program that ended with a status other than 0: which, how, and what it said on standard error.
    public struct Failed: Error, CustomStringConvertible {
        /// The program and its first argument (`python3 gen_health_export.py`).
        public var program: String
        /// Its exit status (`128 + signal` when a signal ended it).
        public var status: Int32
        /// What it wrote to standard error.
        public var stderr: String

        public var description: String { "\(program) exited with \(status): \(stderr)" }
    }

    /// Runs `python3 arguments…` (found on `PATH`) to its end and returns what it printed.
    /// - Throws: ``Failed`` when it exits with a status other than 0; `POSIXError` when it cannot start.
    @discardableResult
    public static func python(_ arguments: [String], input: Data? = nil, workingDirectory: URL? = nil) async throws
        -> Output
    {
        let output = try await run("/usr/bin/env", ["python3"] + arguments, input: input, workingDirectory: workingDirectory)
        guard output.status == 0 else {
            let script = arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
            throw Failed(
                program: "python3 \(script)", status: output.status, stderr: String(decoding: output.stderr, as: UTF8.self))
        }
        return output
    }
}
