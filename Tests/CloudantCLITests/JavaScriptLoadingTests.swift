import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// The JavaScript engine is opened when a design function first runs, not when the process starts: a process
/// that runs no JavaScript never maps JavaScriptCore (nor ICU and GLib behind it), and one whose engine cannot be
/// loaded fails its design functions with CouchDB's error instead of failing to start.
@Suite("JavaScriptCore loaded on first use")
struct JavaScriptLoadingTests {
    /// Whether the process maps WebKitGTK's JavaScriptCore library.
    ///
    /// Read to its end through a file handle: on a `/proc` file (whose size is reported as 0) Foundation's
    /// `String(contentsOfFile:)` returns what its first read gets, about 4 KB of this list, so a library that
    /// address randomisation placed further down went unseen and the test failed now and then.
    static func mapsJavaScriptCore(_ pid: Int32) throws -> Bool {
        let maps = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? maps.close() }
        return String(decoding: try maps.readToEnd() ?? Data(), as: UTF8.self).contains("libjavascriptcoregtk")
    }

    @Test func aServerMapsTheEngineOnlyOnceADesignFunctionIsCompiled() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(folder: folder)
        let port = server.port

        #expect(await ServeHTTP.request("PUT", "/clinic", port: port)?.status == 201)
        for n in 1...3 {
            #expect(await ServeHTTP.request("PUT", "/clinic/d\(n)", body: #"{"n":\#(n)}"#, port: port)?.status == 201)
        }
        #expect(await ServeHTTP.request("GET", "/clinic/_all_docs", port: port)?.status == 200)
        // Starting, and serving documents and databases, needs no engine.
        #expect(try !Self.mapsJavaScriptCore(server.process.pid))

        // A design document's functions are compiled when it is saved, as CouchDB checks them.
        let design = #"{"views":{"by_n":{"map":"function(doc) { emit(doc.n, null); }"}}}"#
        #expect(await ServeHTTP.request("PUT", "/clinic/_design/stats", body: design, port: port)?.status == 201)
        #expect(try Self.mapsJavaScriptCore(server.process.pid))
        let view = await ServeHTTP.request("GET", "/clinic/_design/stats/_view/by_n", port: port)
        #expect(view?.status == 200)
        let keys = try view.map { try JSONValue(parsing: $0.body)["rows"]?.arrayValue?.map { $0["key"] } }
        #expect(keys == [1, 2, 3])
    }

    @Test func anEngineThatCannotBeLoadedFailsTheViewWithOSProcessErrorAndLosesNothing() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let design = #"{"_id":"_design/stats","views":{"by_n":{"map":"function(doc) { emit(doc.n, null); }"}}}"#
        #expect(try await CLIRunner.run(["--data", data, "put", "--db", "clinic", design]).status == 0)
        #expect(try await CLIRunner.run(["--data", data, "put", "--db", "clinic", #"{"_id":"d1","n":1}"#]).status == 0)

        var environment = ProcessInfo.processInfo.environment
        environment["CLOUDANT_JAVASCRIPTCORE"] = folder.appendingPathComponent("no-such-libjavascriptcore.so").path
        let missing = try await ChildProcess.run(
            CLIRunner.executable.path, ["--data", data, "view", "--db", "clinic", "stats/by_n"], environment: environment)
        let message = String(decoding: missing.stderr, as: UTF8.self)
        #expect(missing.status != 0)
        #expect(message.contains("os_process_error"), "\(message)")
        #expect(message.contains("could not be loaded"), "\(message)")
        #expect(message.contains("no-such-libjavascriptcore.so"), "\(message)")

        // The store is untouched: the same view runs once the engine is there.
        let view = try await CLIRunner.run(["--data", data, "view", "--db", "clinic", "stats/by_n"])
        #expect(view.status == 0, "\(view.stderr)")
        #expect(try JSONValue(parsing: view.stdout)["rows"]?.arrayValue?.map { $0["key"] } == [1])
    }
}
