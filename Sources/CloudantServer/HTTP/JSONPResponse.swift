internal import CloudantCore
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore

/// JSONP as CouchDB's `couch_httpd` answers it: with `chttpd/allow_jsonp` set to `true`, a request with a
/// `callback` parameter gets its JSON answer (a document, an error, a feed or a view, whole or streamed) as
/// `/* CouchDB */CALLBACK(JSON);` with `Content-Type: application/javascript`. A callback other than letters,
/// digits, `.`, `_`, `[` and `]` is `400 invalid_callback`; without the setting, `callback` is ignored.
enum JSONPResponse {
    /// `response` as the request's `callback` asks (the caller has checked that the configuration allows it).
    static func apply(to response: Response, callback: String?, method: HTTPRequest.Method) -> Response {
        guard let callback, !callback.isEmpty,
            response.headers[.contentType]?.hasPrefix("application/json") == true
        else { return response }
        guard isValid(callback) else { return CouchResponse.json(["error": "bad_request", "reason": "invalid_callback"], status: 400) }
        var wrapped = response
        wrapped.headers[.contentType] = "application/javascript"
        // The length changes; the body streams as the original did.
        wrapped.headers[.contentLength] = nil
        if method == .head { return wrapped }
        let body = response.body
        let prefix = "/* CouchDB */" + callback + "("
        wrapped.body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: prefix))
            try await body.write(JSONPBodyWriter(base: writer))
        }
        return wrapped
    }

    /// `couch_httpd:validate_callback/1`.
    static func isValid(_ callback: String) -> Bool {
        callback.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || [UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]")].contains(byte)
        }
    }
}

/// Passes a JSON body through, closing the callback's call before the body's final newline.
private struct JSONPBodyWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    /// A newline that ended the last buffer, written only if more follows.
    var heldNewline = false

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard buffer.readableBytes > 0 else { return }
        var buffer = buffer
        if heldNewline {
            try await base.write(ByteBuffer(string: "\n"))
            heldNewline = false
        }
        if buffer.getInteger(at: buffer.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\n") {
            buffer.moveWriterIndex(to: buffer.writerIndex - 1)
            heldNewline = true
        }
        if buffer.readableBytes > 0 { try await base.write(buffer) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.write(ByteBuffer(string: ");\n"))
        try await base.finish(trailingHeaders)
    }
}
