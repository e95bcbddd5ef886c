internal import ArgumentParser
internal import CloudantOnly
internal import Foundation

/// `cloudant attachment put|get`: move one attachment between a file (or standard input/output) and a
/// document, in pieces, so its size is bounded by the disk rather than by memory.
struct AttachmentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment",
        abstract: "Write or read one attachment of a document, streamed in pieces.",
        subcommands: [Put.self, Get.self])

    /// `cloudant attachment put --db NAME --id ID --name NAME [--rev REV] [--content-type T] [--file PATH]`.
    struct Put: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or replace an attachment from a file or standard input; prints {\"ok\":true,\"id\",\"rev\"}.",
            discussion: """
                The content streams into the store (compressed on the way for types CouchDB keeps \
                compressed), so a file of any size is written in bounded memory. Without --rev the \
                document must not exist yet (it is created), as with CouchDB's attachment PUT. The store \
                is created if it does not exist.

                Examples:
                  cloudant attachment put --db scans --id visit-12 --name mri.dcm --file ./mri.dcm \\
                    --content-type application/dicom --rev 1-967a00dff5e02add41819138abb3284d
                  gzip -c notes.txt | cloudant attachment put --db notes --id day --name notes.txt \\
                    --content-type text/plain --gzip
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption
        @Option(help: "The document id.") var id: String
        @Option(help: "The attachment name.") var name: String
        @Option(help: "The revision being edited (omit for a new document).") var rev: String?
        @Option(name: .customLong("content-type"), help: "The attachment's MIME type.") var contentType = "application/octet-stream"
        @Option(help: "The file to read; omit or pass - for standard input.") var file: String?
        @Flag(help: "The input is a gzip member to keep as it is (it is checked).") var gzip = false

        func execute() async throws {
            let pieces = try file.flatMap { $0 == "-" ? nil : try FilePieces(path: $0) } ?? FilePieces(handle: .standardInput)
            let store = try global.openOrCreate(database.db)
            let result = try await store.putAttachment(
                name, documentID: id, rev: rev, contentType: contentType, encoding: gzip ? .gzip : .identity,
                content: pieces)
            Output.print(result.json)
        }
    }

    /// `cloudant attachment get --db NAME --id ID --name NAME [--rev REV] [--out PATH]`.
    struct Get: CloudantCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an attachment's content to a file or standard output.",
            discussion: """
                The content as written (decoded when the store keeps it compressed) streams out in pieces. \
                With --out, the file is written beside its final name and renamed when complete, and \
                {"id","name","content_type","length","digest","out"} is printed.

                Example: cloudant attachment get --db scans --id visit-12 --name mri.dcm --out ./mri.dcm
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var database: DatabaseOption
        @Option(help: "The document id.") var id: String
        @Option(help: "The attachment name.") var name: String
        @Option(help: "Read it from this revision instead of the winner.") var rev: String?
        @Option(help: "The file to write; omit for standard output.") var out: String?

        func execute() async throws {
            let store = try global.openExisting(database.db)
            let content = try await store.attachmentContent(documentID: id, name: name, rev: rev)
            guard let out else {
                for try await piece in content.contentBytes() { StandardStreams.output(Data(piece)) }
                return
            }
            let partial = out + ".partial"
            guard FileManager.default.createFile(atPath: partial, contents: nil), let handle = FileHandle(forWritingAtPath: partial) else {
                throw CloudantError(.invalidInput, "Cannot write \(out); check the folder and its permissions.", context: .init(field: "out"))
            }
            do {
                for try await piece in content.contentBytes() { try handle.write(contentsOf: piece) }
                try handle.synchronize()
                try handle.close()
                _ = try? FileManager.default.removeItem(atPath: out)
                try FileManager.default.moveItem(atPath: partial, toPath: out)
            } catch {
                try? handle.close()
                try? FileManager.default.removeItem(atPath: partial)
                throw error
            }
            let info = content.info
            Output.print([
                "id": .string(id), "name": .string(name), "content_type": .string(info.contentType),
                "length": .number(JSONNumber(info.length)), "digest": .string(info.digest), "out": .string(out),
            ])
        }
    }
}
