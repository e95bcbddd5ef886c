internal import Logging

/// The server's log handler: swift-log's standard-error stream, with metadata formatted only when a message
/// is actually written.
///
/// Hummingbird tags every request's logger with a fresh `hb.request.id`. `StreamLogHandler` formats its
/// whole metadata again on every such change, whatever the log level, which cost about 8 % of a short
/// request's CPU (a `_find` over HTTP) although the server only logs errors.
struct ServerLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .error
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // Only messages at or above `logLevel` reach here (swift-log checks first), so the formatting
        // cost is paid per message written, not per request.
        var stream = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
        stream.logLevel = logLevel
        stream.metadata = metadata
        stream.log(event: event)
    }
}
