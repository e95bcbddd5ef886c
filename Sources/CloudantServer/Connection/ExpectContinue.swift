internal import HTTPTypes
internal import NIOCore
internal import NIOHTTPTypes

/// Answers `Expect: 100-continue` with an interim `100 Continue`, as CouchDB's HTTP server does.
///
/// curl and libcurl (URLSession on Linux) send that header with every upload over 1 MB and then wait a
/// full second for the interim answer before sending the body anyway; Hummingbird never sends it, so
/// every large attachment upload and every multipart push paid that second. The final answer may still
/// refuse the request (a `401` or a `413`) after the client starts sending, which RFC 9110 allows.
final class ExpectContinue: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data),
            request.headerFields[.expect]?.lowercased() == "100-continue"
        {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
