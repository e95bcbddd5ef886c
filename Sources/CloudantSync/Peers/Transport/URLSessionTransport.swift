internal import CloudantBase
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An ``HTTPTransport`` over Foundation's `URLSession` (libcurl on Linux): the default of ``HTTPPeer``.
///
/// Cookies are never stored (the peer manages its session cookie itself) and the request's timeout is the
/// longest silence `URLSession` waits for.
///
/// The transport answers authentication challenges itself. On Linux, a task that meets a `401` with a
/// `WWW-Authenticate` header (what CouchDB sends with `require_valid_user`, and what `cloudant serve` sends
/// to a request without valid credentials, such as an expired session cookie) and has no credential to offer
/// is suspended forever by swift-corelibs-foundation (its #5456), whatever the timeout. Here the
/// challenge is refused and the request returns the `401`, so the peer can log in again or report it.
///
/// A peer that sends without pause (an endless body as fast as the network carries it) keeps the session's
/// queue busy: the transport refuses the answer at once when it breaks ``PeerLimits``, but on Linux the
/// transfer itself stops only when that queue gets to the cancellation, which can take as long as the peer
/// keeps sending, and meanwhile the session's other requests wait. Against peers you do not trust, prefer
/// `AsyncHTTPClientTransport`, which closes the connection as soon as the answer is refused.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let tasks: TaskTable

    /// A transport with an ephemeral session of its own.
    public convenience init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        self.init(configuration: configuration)
    }

    /// A transport with a session made from `configuration` (a proxy, extra TLS settings).
    public init(configuration: URLSessionConfiguration) {
        tasks = TaskTable()
        session = URLSession(configuration: configuration, delegate: tasks, delegateQueue: nil)
    }

    deinit {
        // The session holds its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let outcome = try await perform(request) { $0.dataTask(with: $1) }
        return HTTPTransportResponse(status: outcome.status, headers: outcome.headers, body: outcome.data)
    }

    public func download(_ request: HTTPTransportRequest) async throws -> HTTPTransportDownload {
        let outcome = try await perform(request) { $0.downloadTask(with: $1) }
        if let file = outcome.file {
            return HTTPTransportDownload(status: outcome.status, headers: outcome.headers, file: file)
        }
        // A refused challenge leaves no file: the answer is its status alone.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-download-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: empty.path, contents: outcome.data)
        return HTTPTransportDownload(status: outcome.status, headers: outcome.headers, file: empty)
    }

    public func upload(_ request: HTTPTransportRequest, fromFile file: URL) async throws -> HTTPTransportResponse {
        let outcome = try await perform(request) { $0.uploadTask(with: $1, fromFile: file) }
        return HTTPTransportResponse(status: outcome.status, headers: outcome.headers, body: outcome.data)
    }

    /// Runs the task `make` makes for `request` within its limits; a failure is thrown as the `CloudantError`
    /// the transport contract names.
    private func perform(
        _ request: HTTPTransportRequest, _ make: @escaping @Sendable (URLSession, URLRequest) -> URLSessionTask
    ) async throws -> TaskTable.Outcome {
        let monitor = TransferMonitor(request.limits)
        let urlRequest = urlRequest(request)
        do {
            return try await monitor.run { try await self.run({ make($0, urlRequest) }, monitor) }
        } catch {
            throw HTTPTransportError.failure(error, of: request)
        }
    }

    private func urlRequest(_ request: HTTPTransportRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return urlRequest
    }

    /// Makes a task with `make`, starts it and waits for its outcome, cancelling it when the caller is
    /// cancelled; failures become `HTTPTransportError`.
    ///
    /// The task is made on the table's `sessionCalls` thread, as it is started and cancelled there: making
    /// one waits on the session's work queue too (for its identifier).
    ///
    /// The waiter is released by the table, not by `URLSession`'s report of the cancelled task: the handler
    /// runs on the cancelling thread, possibly between the task's creation and its registration here, and the
    /// session's report of that cancellation (delivered on its own queue) could then come before the waiter
    /// was registered and find nobody to release, leaving the request suspended for good.
    private func run(
        _ make: @escaping @Sendable (URLSession) -> URLSessionTask, _ monitor: TransferMonitor
    ) async throws -> TaskTable.Outcome {
        let session = session
        let task = await tasks.sessionCalls.run { make(session) }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                tasks.start(task, monitor, continuation)
            }
        } onCancel: {
            tasks.cancel(task)
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure(let error):
            if let violation = error as? HTTPTransportError { throw violation }
            if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw HTTPTransportError.cancelled }
            if (error as? URLError)?.code == .timedOut { throw HTTPTransportError.timedOut }
            throw HTTPTransportError.unreachable(error.localizedDescription)
        }
    }
}

/// The session's delegate: what each running task has received so far, and the waiter for its end.
private final class TaskTable: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    /// What a task ended with: status, headers and either its body or the file holding it.
    struct Outcome {
        var status: Int
        var headers: [(name: String, value: String)]
        var data: Data
        var file: URL?
    }

    private struct Running {
        var continuation: CheckedContinuation<Result<Outcome, any Error>, Never>
        /// Counts the body against the request's limits.
        var monitor: TransferMonitor
        var data = Data()
        var file: URL?
        /// The `401` of a challenge the transport refused.
        var refused: HTTPURLResponse?
    }

    // `lock` protects `running` and `cancelledBeforeStart`; delegate calls come on the session's queue, starts
    // and cancellations on any thread.
    private let lock = NSLock()
    private var running: [Int: Running] = [:]
    /// Tasks whose caller was cancelled before they were started: they are never started.
    private var cancelledBeforeStart: Set<Int> = []

    func start(
        _ task: URLSessionTask, _ monitor: TransferMonitor, _ continuation: CheckedContinuation<Result<Outcome, any Error>, Never>
    ) {
        let cancelled = lock.withLock {
            if cancelledBeforeStart.remove(task.taskIdentifier) != nil { return true }
            running[task.taskIdentifier] = Running(continuation: continuation, monitor: monitor)
            return false
        }
        guard !cancelled else {
            continuation.resume(returning: .failure(URLError(.cancelled)))
            return
        }
        sessionCalls.submit { task.resume() }
    }

    /// Where tasks are made, started and cancelled. FoundationNetworking's `dataTask(with:)`, `resume()` and
    /// `cancel()` each run `sync` on the session's work queue, which waits for as long as that queue is busy
    /// driving other transfers (under load, endless and trickled bodies kept it so for minutes). Called from
    /// a task, that wait held one of the few threads every task of the process shares, and the whole process
    /// stalled until it ended. One thread keeps each task's calls in order: made, started, then cancelled;
    /// one per session, so that a session stuck on a hostile peer holds up no other.
    let sessionCalls = BlockingJobs(name: "cloudant-url", width: 1)

    /// Cancels `task` for its cancelled caller and releases the caller at once, whether or not the task was
    /// started; the session's own report of the cancellation then finds no waiter.
    func cancel(_ task: URLSessionTask) {
        let waiting = lock.withLock {
            guard let state = running.removeValue(forKey: task.taskIdentifier) else {
                // Not started yet (or already finished: then the mark is one integer that is never used).
                cancelledBeforeStart.insert(task.taskIdentifier)
                return nil as Running?
            }
            return state
        }
        sessionCalls.submit { task.cancel() }
        guard let waiting else { return }
        if let file = waiting.file { try? FileManager.default.removeItem(at: file) }
        waiting.continuation.resume(returning: .failure(URLError(.cancelled)))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let refused = lock.withLock { () -> (Running, any Error)? in
            guard let monitor = running[dataTask.taskIdentifier]?.monitor else { return nil }
            do {
                try monitor.received(data.count)
            } catch {
                return running.removeValue(forKey: dataTask.taskIdentifier).map { ($0, error) }
            }
            running[dataTask.taskIdentifier]?.data.append(data)
            return nil
        }
        if let (state, error) = refused { end(dataTask, state, error) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let refused = lock.withLock { () -> (Running, any Error)? in
            guard let monitor = running[dataTask.taskIdentifier]?.monitor else { return nil }
            monitor.headArrived()
            // A stated length past the limit is refused before any of it is read.
            if let limit = monitor.limits?.maximumBodySize, response.expectedContentLength > Int64(limit) {
                return running.removeValue(forKey: dataTask.taskIdentifier).map { ($0, HTTPTransportError.tooLarge(limit: limit)) }
            }
            return nil
        }
        completionHandler(refused == nil ? .allow : .cancel)
        if let (state, error) = refused { end(dataTask, state, error) }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        let refused = lock.withLock { () -> (Running, any Error)? in
            guard let monitor = running[downloadTask.taskIdentifier]?.monitor else { return nil }
            do {
                try monitor.received(Int(bytesWritten))
            } catch {
                return running.removeValue(forKey: downloadTask.taskIdentifier).map { ($0, error) }
            }
            return nil
        }
        if let (state, error) = refused { end(downloadTask, state, error) }
    }

    /// A redirect to another origin (scheme, host or port) goes without the request's credentials: the
    /// session would otherwise copy `Authorization` and the session cookie to whatever host the answer names.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        var next = request
        if let from = response.url ?? task.currentRequest?.url, let to = request.url, !HTTPTransportRequest.sameOrigin(from, to) {
            for field in HTTPTransportRequest.credentialFields { next.setValue(nil, forHTTPHeaderField: field) }
        }
        completionHandler(next)
    }

    /// Ends a task whose answer broke its limits: the waiter gets `error` now; the session's report of the
    /// cancellation finds no waiter.
    private func end(_ task: URLSessionTask, _ state: Running, _ error: any Error) {
        sessionCalls.submit { task.cancel() }
        if let file = state.file { try? FileManager.default.removeItem(at: file) }
        state.continuation.resume(returning: .failure(error))
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // `location` is removed when this returns: keep the body in a file of our own.
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-download-\(UUID().uuidString)")
        let moved = (try? FileManager.default.moveItem(at: location, to: kept)) != nil
            || (try? FileManager.default.copyItem(at: location, to: kept)) != nil
        let waited = lock.withLock {
            guard running[downloadTask.taskIdentifier] != nil else { return false }
            running[downloadTask.taskIdentifier]?.file = moved ? kept : nil
            return true
        }
        // Its caller was cancelled meanwhile and is gone (see `cancel(_:)`): nobody will remove the file.
        if !waited, moved { try? FileManager.default.removeItem(at: kept) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Credentials travel in the request's headers; a challenge means they were missing or refused.
        lock.withLock { running[task.taskIdentifier]?.refused = challenge.failureResponse as? HTTPURLResponse }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = lock.withLock({ running.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let refused = state.refused {
            state.continuation.resume(returning: .success(Outcome(status: refused.statusCode, headers: Self.headers(refused), data: Data())))
            return
        }
        if let error {
            if let file = state.file { try? FileManager.default.removeItem(at: file) }
            state.continuation.resume(returning: .failure(error))
            return
        }
        let response = task.response as? HTTPURLResponse
        state.continuation.resume(
            returning: .success(
                Outcome(status: response?.statusCode ?? 0, headers: response.map(Self.headers) ?? [], data: state.data, file: state.file)))
    }

    private static func headers(_ response: HTTPURLResponse) -> [(name: String, value: String)] {
        response.allHeaderFields.compactMap { key, value in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
    }
}
