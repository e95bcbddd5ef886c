internal import CloudantCore
internal import HTTPTypes
internal import NIOCore
internal import NIOHTTP1
internal import NIOHTTPTypes

/// Watches one HTTP/1.1 connection for the two things Hummingbird leaves to us:
///
/// - **Malformed HTTP.** A request the HTTP parser refuses is answered `400` with CouchDB's JSON error
///   body (Hummingbird's own answer has an empty body), after any response in progress, and the
///   connection is closed.
/// - **A client that goes away.** When the client closes its side while a request is in progress (its
///   FIN arrives as `inputClosed`, because the server allows half-closure), the connection is closed, which
///   cancels the request's task (see ``CouchResponder``) instead of leaving it running with the socket in
///   CLOSE-WAIT until the response is written.
///
/// Bytes that arrive after a request that asked to close the connection (`Connection: close`) are not a
/// request to answer (RFC 9112 §9.6: the server must not process them): a client that sent them reused the
/// connection before it saw the close, and a `400` would reach it as the answer to its next request. They
/// are dropped and the connection closes once the answer in progress is written, so the client sees the
/// connection end and sends again on a new one.
///
/// It sits after Hummingbird's HTTP/1 codec, so it sees HTTPTypes request and response parts.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose head has arrived and whose response has not ended.
    private var requestsInProgress = 0
    /// The parser failed while a response was being written: answer once it ends.
    private var pendingFailure: HTTPParserError?
    private var answeredFailure = false
    /// The answer in progress says `Connection: close`, or data came after a request that asked to close:
    /// close when the answer ends.
    private var closeAfterAnswer = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { requestsInProgress += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(let head) = part, let connection = head.headerFields[.connection],
            CouchEndpoint.asksToClose(connection)
        {
            // An answer that says the connection closes must close it (Hummingbird closes only after a request
            // whose header is exactly `close`).
            closeAfterAnswer = true
        }
        guard case .end = part else {
            context.write(data, promise: promise)
            return
        }
        requestsInProgress = max(0, requestsInProgress - 1)
        context.write(data, promise: promise)
        if closeAfterAnswer {
            context.flush()
            context.close(promise: nil)
            return
        }
        if let failure = pendingFailure {
            pendingFailure = nil
            answer(failure, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let failure = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if failure == .closedConnection {
            if requestsInProgress > 0 {
                closeAfterAnswer = true
            } else {
                context.flush()
                context.close(promise: nil)
            }
            return
        }
        // The request that failed to parse counts as in progress only if its head got through.
        if requestsInProgress > 0 {
            pendingFailure = failure
        } else {
            answer(failure, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, requestsInProgress > 0 {
            // The client hung up before its answer: nobody will read it. Closing cancels the request.
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Writes the 400 (once) and closes the connection.
    private func answer(_ failure: HTTPParserError, context: ChannelHandlerContext) {
        guard !answeredFailure else { return }
        answeredFailure = true
        let body = Self.body(for: failure)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(body.count)
        headers[.connection] = "close"
        headers[.cacheControl] = "must-revalidate"
        let head = HTTPResponse(status: .badRequest, headerFields: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// CouchDB's `{"error": "bad_request", "reason": …}` for a request the parser refused.
    static func body(for failure: HTTPParserError) -> [UInt8] {
        let reason = "The request is not valid HTTP/1.1 (\(failure)), so it was not read. Check the request line, "
            + "the header lines and the body's framing (Content-Length or chunked)."
        let json: JSONValue = ["error": "bad_request", "reason": .string(reason)]
        return json.jsonBytes() + [UInt8(ascii: "\n")]
    }
}
