internal import ArgumentParser
internal import CloudantJavaScript
internal import CloudantOnly
internal import Foundation

/// Options every `cloudant` command accepts, before the command (`cloudant --data DIR db list`) or after it
/// (`cloudant db list --data DIR`).
///
/// How both places work: the root command declares this group too, and ArgumentParser lets the root read its
/// options anywhere on the command line; a subcommand that declares the same group is then handed the root's
/// parsed value (ArgumentParser reuses an `@OptionGroup` value of the same type already decoded up the
/// command stack). So there is one parse and one value, wherever the user typed the option.
struct GlobalOptions: ParsableArguments {
    // An array so that a second `--data` is seen rather than silently winning; `validate()` allows one folder.
    @Option(
        name: .customLong("data"), parsing: .singleValue,
        help: ArgumentHelp(
            "The folder that holds the stores (default: \(StoreDirectory.defaultPath)); before or after the command.",
            valueName: "DIR"))
    var dataFolders: [String] = []

    /// The folder that holds the stores.
    var data: String { dataFolders.last ?? StoreDirectory.defaultPath }

    var stores: StoreDirectory { StoreDirectory(path: data) }

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "The key of encrypted stores: a file of 32 raw bytes or 64 hex digits (or set CLOUDANT_KEY_FILE).",
            valueName: "FILE"))
    var keyFile: String?

    /// The encryption key `--key-file` (or `CLOUDANT_KEY_FILE`) names, if any.
    /// - Throws: ``CloudantCore/CloudantError`` `.invalidInput` for a file that cannot be read or holds no key.
    func encryptionKey() throws -> DatabaseKey? {
        guard let path = keyFile ?? ProcessInfo.processInfo.environment["CLOUDANT_KEY_FILE"] else { return nil }
        return try Self.readKey(at: path)
    }

    /// The key in the file at `path`: 32 raw bytes, or 64 hex digits (surrounding whitespace ignored).
    static func readKey(at path: String) throws -> DatabaseKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CloudantError(.invalidInput, "Cannot read the key file \(path).", context: .init(field: "key-file"))
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes: [UInt8]
        if text.count == 64, let hex = Self.hexBytes(text) {
            bytes = hex
        } else {
            bytes = Array(data)
        }
        do {
            return try DatabaseKey(rawBytes: bytes)
        } catch {
            throw CloudantError(
                .invalidInput, "The key file \(path) must hold 32 raw bytes or 64 hex digits (`head -c 32 /dev/urandom > \(path)`).",
                context: .init(field: "key-file"))
        }
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// How stores are opened: with the key, `registry`'s entity kinds, and the JavaScript engine, so design
    /// documents' views can be queried and their validation functions run on every write.
    func storeOptions(registry: EntityRegistry = EntityRegistry()) throws -> StoreOptions {
        var options = StoreOptions(registry: registry)
        options.encryptionKey = try encryptionKey()
        options.designFunctions = Self.engine
        return options
    }

    /// The process's engine: it makes an instance only when a design function first runs.
    static let engine = JavaScriptEngine()

    func validate() throws {
        if Set(dataFolders).count > 1 {
            throw ValidationError(
                "--data was given more than once with different folders (\(dataFolders.joined(separator: ", "))); "
                    + "give it once, before or after the command.")
        }
    }
}
