import Foundation

extension CDABenchmarks {
    /// The baseline: `Baselines/cda_lxml.py`, the same extraction with Python's lxml, run as a child process
    /// that times itself after a warm-up, so Python's start-up is not in its numbers.
    struct LxmlBaseline {
        var python: String
        var script: String
        /// "lxml 6.1.3, libxml2 2.14.6": lxml ships its own libxml2, which need not be the one we link.
        var versions: String

        /// Python from `CDA_PYTHON`, else `/tmp/cda-venv/bin/python`, when it imports lxml; otherwise why not.
        static func locate() -> Result<LxmlBaseline, Unavailable> {
            let environment = ProcessInfo.processInfo.environment
            let python = environment["CDA_PYTHON"] ?? "/tmp/cda-venv/bin/python"
            let script =
                environment["CDA_LXML_SCRIPT"]
                ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Baselines/cda_lxml.py").path
            let setUp =
                "create it with `python3 -m venv /tmp/cda-venv && /tmp/cda-venv/bin/pip install lxml`, or set CDA_PYTHON"
            guard FileManager.default.isExecutableFile(atPath: python) else {
                return .failure(Unavailable(why: "no Python at \(python); \(setUp)"))
            }
            guard FileManager.default.fileExists(atPath: script) else {
                return .failure(Unavailable(why: "no \(script); set CDA_LXML_SCRIPT"))
            }
            let probe = "import lxml.etree as e; print('lxml %s, libxml2 %s' % ("
                + "'.'.join(map(str, e.LXML_VERSION[:3])), '.'.join(map(str, e.LIBXML_VERSION))))"
            guard let result = try? runProcess(python, ["-c", probe]), result.status == 0 else {
                return .failure(Unavailable(why: "\(python) cannot import lxml; \(setUp)"))
            }
            let versions = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            return .success(LxmlBaseline(python: python, script: script, versions: versions))
        }

        /// Why there is no baseline to compare with.
        struct Unavailable: Error {
            var why: String
        }

        /// Seconds for `iterations` parse + extracts of `file`, as timed inside Python.
        func seconds(file: URL, iterations: Int) throws -> Double {
            let result = try runProcess(
                python, [script, "--json", "--repetitions", "1", "--iterations", "\(iterations)", file.path])
            guard result.status == 0,
                let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
                let seconds = (object["seconds"] as? [Double])?.first
            else { throw BenchmarkError.unexpected("cda_lxml.py failed on \(file.lastPathComponent)") }
            return seconds
        }

        /// lxml's extraction of `file` in the form of ``CDABenchmarks/canonicalLines(of:)``.
        func canonicalLines(file: URL) throws -> [String] {
            let result = try runProcess(python, [script, "--dump", file.path])
            guard result.status == 0 else { throw BenchmarkError.unexpected("cda_lxml.py --dump failed") }
            return result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }
}
