import CloudantBase
import Dispatch
import Foundation
import Testing

/// Threads of our own carry their name from their first instruction, whoever starts them: Foundation's
/// `Thread.name` set from inside a thread that a Dispatch worker started is lost whenever the new thread runs
/// before `start()` returns (it then reads back the worker's name).
@Suite("Named threads")
struct NamedThreadTests {
    @Test func aThreadStartedFromADispatchWorkerHasItsNameBeforeItsBodyRuns() async {
        let names = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().async {
                            NamedThread.start("cloudant-test") { continuation.resume(returning: NamedThread.currentName) }
                        }
                    }
                }
            }
            var names: [String?] = []
            for await name in group { names.append(name) }
            return names
        }
        #expect(names.count == 200)
        #expect(names.allSatisfy { $0 == "cloudant-test" })
    }

    @Test func aNameLongerThanFifteenBytesKeepsItsFirstFifteen() async {
        let name = await withCheckedContinuation { continuation in
            NamedThread.start("cloudant-log-checkpoints") { continuation.resume(returning: NamedThread.currentName) }
        }
        #expect(name == "cloudant-log-ch")
    }
}
