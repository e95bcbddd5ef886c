// OTFCloudantStore's README (its watchOS release), "OTFWatchConnectivityPeer": the side that answers hands every message to
// `reply(to:store:sendReply:)`; the side that starts synchronizes over the app's channel. Compiled against
// CloudantCare alone.
//
// Changed for Linux: WatchConnectivity's session is the app's channel, here a closure that hands the message
// to the other store's peer (a socket or any transport works the same way).
import CloudantCare
import Foundation

/// What the watch-peer snippet did.
struct WatchPeerFindings: Sendable {
    var watchTasks: [String] = []
    var phoneOutcomes: Int = 0
    var messageSizes: [Int] = []
    var secondSyncPayloadBytes = 0
    var watchOnlyDocumentKept = false
}

/// Records what crossed the channel.
final class ChannelLog: @unchecked Sendable {
    // `lock` protects `sizes`.
    private let lock = NSLock()
    private var sizes: [Int] = []

    func record(_ message: [String: Any]) {
        let bytes = message.values.reduce(0) { total, value in total + ((value as? Data)?.count ?? 0) }
        lock.withLock { sizes.append(bytes) }
    }

    func take() -> [Int] { lock.withLock { defer { sizes = [] }; return sizes } }
}

enum WatchPeerSnippets {
    /// The phone starts; the watch answers through `reply(to:store:sendReply:)`, each reply awaited for up to
    /// `replyTimeout`.
    static func run(
        phone: OTFCloudantStore, watch: OTFCloudantStore, maximumMessageSize: Int, now: Date,
        replyTimeout: Duration = .seconds(30)
    ) async throws -> WatchPeerFindings {
        var findings = WatchPeerFindings()
        let utc = TimeZone(identifier: "UTC") ?? .current
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let start = calendar.startOfDay(for: now)
        let tasks = try (0..<40).map { index in
            CareTask(
                id: "task-\(index)", title: String(repeating: "Daily exercise \(index) ", count: 20), carePlanUUID: nil,
                schedule: try .dailyAtTime(hour: 8, minutes: 0, start: start, end: nil, text: nil, calendar: calendar),
                timezone: utc)
        }
        _ = try await phone.addTasks(tasks)
        _ = try await watch.add([WatchSetting(id: "watch-face", value: "modular")])

        let peer = OTFWatchConnectivityPeer(maximumMessageSize: maximumMessageSize, replyTimeout: replyTimeout)
        let watchPeer = OTFWatchConnectivityPeer(maximumMessageSize: maximumMessageSize, replyTimeout: replyTimeout)
        let log = ChannelLog()
        let channel: OTFWatchConnectivityPeer.SendMessage = { message in
            log.record(message)
            let reply = await withCheckedContinuation { (continuation: CheckedContinuation<MessageBox, Never>) in
                watchPeer.reply(to: message, store: watch, sendReply: { reply in continuation.resume(returning: MessageBox(reply)) })
            }
            log.record(reply.message)
            return reply.message
        }
        try await peer.synchronize(store: phone, sendMessage: channel)
        findings.messageSizes = log.take()
        findings.watchTasks = try await watch.fetchTasks().map(\.id)

        // The watch records an outcome; the next sync brings it to the phone and carries nothing else.
        let first = try await watch.fetchTask(withID: "task-0")
        _ = try await watch.addOutcome(Outcome(taskUUID: first.uuid, taskOccurrenceIndex: 0, values: [OutcomeValue(.boolean(true))], timezone: utc))
        try await peer.synchronize(store: phone, sendMessage: channel)
        findings.secondSyncPayloadBytes = log.take().reduce(0, +)
        findings.phoneOutcomes = try await phone.fetchOutcomes().count
        findings.watchOnlyDocumentKept = try await watch.get(WatchSetting.self).map(\.id) == ["watch-face"]
        return findings
    }
}

/// A document only the watch has, which the original's merge would have deleted.
struct WatchSetting: Codable, Identifiable, OTFCloudantRevision {
    var id: String
    var value: String
    var revId: String?
}

/// A reply carried back to the starting side (property-list values only).
struct MessageBox: @unchecked Sendable {
    let message: [String: Any]
    init(_ message: [String: Any]) { self.message = message }
}
