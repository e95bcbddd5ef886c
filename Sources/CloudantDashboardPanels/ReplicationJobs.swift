internal import CloudantCore
internal import CloudantStore
internal import CloudantSync
internal import Foundation
internal import Synchronization

/// The replications the dashboard started, while the server runs: each a `Replicator` between a
/// database of the server and a remote CouchDB URL, with its progress as the replicator reports it.
final class ReplicationJobs: Sendable {
    /// What a page shows of one job.
    struct Job: Sendable {
        var id: String
        var database: String
        var direction: Direction
        /// The remote database's URL, without credentials.
        var remote: String
        var continuous: Bool
        var state: String = "starting"
        var docsRead = 0
        var docsWritten = 0
        var failures = 0
        var pending: Int?
        var error: String?
        var started: Date
        var stopped: Date?
        var startedBy: String?

        var isRunning: Bool { stopped == nil }
    }

    enum Direction: String, Sendable {
        /// From this server's database to the remote one.
        case push
        /// From the remote database into this server's.
        case pull
    }

    private struct Entry {
        var job: Job
        var replicator: Replicator
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Starts replicating `store` (the server's database `database`) with `remote`.
    /// - Throws: `CloudantError` for a URL that names no database.
    func start(
        database: String, store: DocumentStore, direction: Direction, remote: URL, continuous: Bool, startedBy: String?
    ) throws -> Job {
        let peer = try HTTPPeer(url: remote)
        let local = LocalPeer(store)
        var options = ReplicationOptions()
        options.continuous = continuous
        let replicator = direction == .push
            ? Replicator(source: local, target: peer, options: options)
            : Replicator(source: peer, target: local, options: options)
        let job = Job(
            id: String(StoreOptions.randomHexID().prefix(12)), database: database, direction: direction, remote: peer.url.absoluteString,
            continuous: continuous, started: Date(), startedBy: startedBy)
        entries.withLock { $0[job.id] = Entry(job: job, replicator: replicator) }
        let id = job.id
        Task { [self] in
            for await step in replicator.progress {
                entries.withLock { all in
                    all[id]?.job.state = step.state.rawValue
                    all[id]?.job.docsRead = step.stats.docsRead
                    all[id]?.job.docsWritten = step.stats.docsWritten
                    all[id]?.job.failures = step.stats.docWriteFailures
                    all[id]?.job.pending = step.pending
                }
            }
        }
        Task { [self] in
            do {
                let stats = try await replicator.run()
                entries.withLock { all in
                    all[id]?.job.state = "complete"
                    all[id]?.job.docsRead = stats.docsRead
                    all[id]?.job.docsWritten = stats.docsWritten
                    all[id]?.job.failures = stats.docWriteFailures
                    all[id]?.job.stopped = Date()
                }
            } catch let error as CloudantError {
                entries.withLock { all in
                    if error.code == .cancelled {
                        all[id]?.job.state = "stopped"
                    } else {
                        all[id]?.job.state = "failed"
                        all[id]?.job.error = error.description
                    }
                    all[id]?.job.stopped = Date()
                }
            } catch {
                entries.withLock { all in
                    all[id]?.job.state = "failed"
                    all[id]?.job.error = "\(error)"
                    all[id]?.job.stopped = Date()
                }
            }
        }
        return job
    }

    /// Stops job `id` of `database`; `false` when there is no such job.
    func stop(_ id: String, database: String) -> Bool {
        let replicator = entries.withLock { all in all[id].flatMap { $0.job.database == database ? $0.replicator : nil } }
        replicator?.cancel()
        return replicator != nil
    }

    /// The jobs of `database`, newest first.
    func jobs(of database: String) -> [Job] {
        entries.withLock { all in all.values.map(\.job).filter { $0.database == database } }
            .sorted { $0.started > $1.started }
    }
}
