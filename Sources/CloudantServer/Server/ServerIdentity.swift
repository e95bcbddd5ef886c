internal import CloudantCore
internal import Foundation

/// The server's stable `uuid` (`GET /`) and the secret that signs session cookies, kept in
/// `<data folder>/.couch_server.json` so both survive restarts: peers derive replication ids from the
/// uuid and users stay logged in.
struct ServerIdentity: Sendable {
    var uuid: String
    var secret: [UInt8]

    static let fileName = ".couch_server.json"

    /// Reads the identity file, creating it on first start.
    /// - Throws: `CloudantError` `.dataFolderUnusable` when the folder cannot be read or written.
    static func load(folder: String, uuid configured: String?) throws -> ServerIdentity {
        let url = URL(fileURLWithPath: folder, isDirectory: true).appendingPathComponent(fileName)
        if let data = try? Data(contentsOf: url), let json = try? JSONValue(parsing: data),
            let uuid = json["uuid"]?.stringValue, let secretHex = json["secret"]?.stringValue,
            let secret = decodeHex(secretHex)
        {
            return ServerIdentity(uuid: configured ?? uuid, secret: secret)
        }
        let identity = ServerIdentity(uuid: configured ?? Hex.encode(SecureRandom.bytes(16)), secret: SecureRandom.bytes(32))
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let json: JSONValue = ["uuid": .string(identity.uuid), "secret": .string(Hex.encode(identity.secret))]
            try json.jsonData().write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw CloudantError(
                .dataFolderUnusable, "Could not write '\(url.path)'; check that the data folder is writable.",
                context: .init(file: url.path), underlying: error)
        }
        return identity
    }

    private static func decodeHex(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        return stride(from: 0, to: bytes.count, by: 2).compactMap { index in
            UInt8(String(decoding: bytes[index...index + 1], as: UTF8.self), radix: 16)
        }
    }
}
