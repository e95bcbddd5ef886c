import CloudantTestSupport
@testable import CloudantServer

extension LiveServer {
    /// Waits until at least `count` feeds (long polls, continuous and event-source `_changes`, live `_find`s) are
    /// streaming from this server. A feed's `since` is fixed by then, so a write made afterwards shows up in it:
    /// the point a test waits for before writing, instead of pausing and hoping the feed has started.
    func waitForOpenFeeds(_ count: Int = 1) async throws {
        let feeds = server.endpoint.openFeeds
        try await waitUntil("\(count) open feeds") { feeds.withLock { $0 } >= count }
    }

    /// The number of feeds streaming from this server now.
    var openFeeds: Int { server.endpoint.openFeeds.withLock { $0 } }

    /// The number of requests this server is handling now (a streaming feed counts until its head is sent).
    var requestsInProgress: Int { server.endpoint.requestsInProgress.withLock { $0 } }
}
