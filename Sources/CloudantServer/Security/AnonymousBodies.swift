internal import Hummingbird
internal import NIOCore

/// The request bodies read before their sender is known: those of anonymous requests (a login, the dashboard's
/// login form), within one budget all of them share.
///
/// A logged-in user's body is read up to ``ServerConfiguration/maxRequestBodySize``; but anybody who can reach
/// the server can open connections, so an anonymous body is read only up to
/// ``ServerConfiguration/maxAnonymousBodySize`` (a login is a few hundred bytes) and only while all anonymous
/// bodies being read together stay within ``ServerConfiguration/anonymousBodyBudget``. Five anonymous
/// connections sending 60 MB each no longer take 300 MB: past the budget a request is answered `503` at once,
/// past its own limit `413`. (Credentials are checked before any body is read, so a request whose login fails
/// sends nothing more to memory.)
final class AnonymousBodies: Sendable {
    /// Bytes all anonymous bodies being read may hold together.
    let budget: Int
    private let used = Locked(0)

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// Bytes held now (tests watch it).
    var held: Int { used.withLock { $0 } }

    /// What one request holds of the budget, given back when its answer is done.
    final class Reservation: Sendable {
        private let bytes = Locked(0)
        private let owner: AnonymousBodies

        init(_ owner: AnonymousBodies) {
            self.owner = owner
        }

        fileprivate func add(_ count: Int) {
            bytes.withLock { $0 += count }
        }

        /// Gives the bytes back.
        func release() {
            let count = bytes.withLock { held in
                defer { held = 0 }
                return held
            }
            if count > 0 { owner.used.withLock { $0 -= count } }
        }
    }

    /// Reads `body` whole, holding its bytes against the budget in `reservation`.
    /// - Throws: ``HTTPFailure`` `413 too_large` past `limit`, `503 service_unavailable` (with `Retry-After`)
    ///   when the budget is spent.
    func collect(_ body: RequestBody, limit: Int, into reservation: Reservation) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await buffer in body {
            let count = buffer.readableBytes
            guard bytes.count + count <= limit else { throw HTTPFailure.tooLarge }
            let granted = used.withLock { used in
                guard used + count <= budget else { return false }
                used += count
                return true
            }
            guard granted else {
                var failure = HTTPFailure(
                    status: 503, error: "service_unavailable",
                    reason: "The server is reading too many request bodies from clients that have not logged in. Log in, or try again in 1 s.")
                failure.headers = [("Retry-After", "1")]
                throw failure
            }
            reservation.add(count)
            bytes += buffer.readableBytesView
        }
        return bytes
    }
}
