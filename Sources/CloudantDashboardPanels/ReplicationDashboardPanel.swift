internal import CloudantCore
public import CloudantServer
internal import Foundation

/// The dashboard's replication page for a database: start a one-shot or continuous replication to or from a
/// CouchDB-compatible URL, watch each job's progress (documents read and written, failures, what is pending),
/// its error, and stop it.
///
/// Jobs run in the server's process for as long as it runs (they are not resumed after a restart, but their
/// checkpoints are kept, so starting the same replication again continues where it was). Only server admins
/// start and stop jobs: a job makes the server connect to the URL given.
public struct ReplicationDashboardPanel: DashboardPanel {
    /// `replication`.
    public let name = "replication"
    /// `Replication`.
    public let title = "Replication"
    private let jobs = ReplicationJobs()

    /// Creates the panel with no jobs.
    public init() {}

    /// The form to start a job, and the jobs of the database, newest first.
    public func render(_ context: DashboardPanelContext) async throws -> DashboardPanelContent {
        let rows = jobs.jobs(of: context.database).map { job -> [String: any Sendable] in
            [
                "id": job.id, "direction": job.direction == .push ? "push to" : "pull from", "remote": job.remote,
                "mode": job.continuous ? "continuous" : "one-shot", "state": job.state, "read": job.docsRead,
                "written": job.docsWritten, "failures": job.failures, "pending": job.pending.map(String.init) ?? "",
                "error": job.error ?? "", "hasError": job.error != nil, "running": job.isRunning,
                "started": ISO8601Timestamp.string(from: job.started, fractionalSeconds: false) ?? "", "by": job.startedBy ?? "",
            ]
        }
        return DashboardPanelContent(
            heading: "Replication of \(context.database)", template: Self.template,
            values: ["jobs": rows, "admin": context.isServerAdmin, "database": context.database])
    }

    /// `action=start` (`direction` push|pull, `remote` URL, `continuous` on) or `action=stop` (`job`).
    public func submit(_ context: DashboardPanelContext, form: [String: String]) async throws -> String {
        guard context.isServerAdmin else {
            throw CloudantError(
                CloudantError.Code("replicationNotAllowed", category: .forbidden),
                "Only server admins start and stop replications from the dashboard.")
        }
        switch form["action"] {
        case "start":
            guard let direction = form["direction"].flatMap(ReplicationJobs.Direction.init(rawValue:)) else {
                throw CloudantError(.invalidInput, "Choose push or pull.", context: .init(field: "direction"))
            }
            let text = (form["remote"] ?? "").trimmingCharacters(in: .whitespaces)
            guard let remote = URL(string: text), ["http", "https"].contains(remote.scheme?.lowercased() ?? "") else {
                throw CloudantError(
                    .invalidInput, "Give the remote database as an http(s) URL, such as https://user:password@host:5984/db.",
                    context: .init(field: "remote"))
            }
            let job = try jobs.start(
                database: context.database, store: context.store, direction: direction, remote: remote,
                continuous: form["continuous"] != nil, startedBy: context.userName)
            return "job=" + job.id
        case "stop":
            guard let id = form["job"], jobs.stop(id, database: context.database) else {
                throw CloudantError(.notFound, "No such replication job.", context: .init(field: "job"))
            }
            return "job=" + id
        default:
            throw CloudantError(.invalidInput, "Unknown action.", context: .init(field: "action"))
        }
    }

    static let template = """
        {{#admin}}<form method="post" action="{{path}}" class="row" id="start-replication">
        <input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="action" value="start">
        <label>Direction <select name="direction"><option value="push">push {{database}} to</option><option value="pull">pull into {{database}} from</option></select></label>
        <label>Remote database <input name="remote" type="url" required size="50" placeholder="https://user:password@host:5984/db"></label>
        <label><span>Continuous</span><input type="checkbox" name="continuous" value="on"></label>
        <button type="submit">Start</button>
        </form>{{/admin}}
        {{^admin}}<p>Only server admins start and stop replications.</p>{{/admin}}
        <p><a href="{{path}}">Refresh</a></p>
        <table class="grid" id="replications"><thead><tr><th>Started</th><th>Job</th><th>Mode</th><th>State</th><th class="num">Read</th><th class="num">Written</th><th class="num">Failed</th><th class="num">Pending</th><th></th></tr></thead><tbody>
        {{#jobs}}<tr data-job="{{id}}"><td>{{started}}<br>{{by}}</td><td>{{direction}} <span class="mono">{{remote}}</span>{{#hasError}}<br><span class="failure">{{error}}</span>{{/hasError}}</td><td>{{mode}}</td><td class="state">{{state}}</td><td class="num">{{read}}</td><td class="num written">{{written}}</td><td class="num">{{failures}}</td><td class="num">{{pending}}</td>
        <td>{{#running}}{{#admin}}<form method="post" action="{{path}}" class="inline"><input type="hidden" name="_csrf" value="{{csrf}}"><input type="hidden" name="action" value="stop"><input type="hidden" name="job" value="{{id}}"><button type="submit" class="danger">Stop</button></form>{{/admin}}{{/running}}</td></tr>
        {{/jobs}}{{^jobs}}<tr><td colspan="9">No replications started here since the server started.</td></tr>{{/jobs}}
        </tbody></table>
        """
}
