internal import ArgumentParser
internal import CloudantOnly

/// `cloudant version`: the package version and the CouchDB API it follows.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print the version of cloudant and the CouchDB API it follows.",
        discussion: "Example: cloudant version --json")

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON instead of a line of text.")
    var json = false

    func run() throws {
        if json {
            print(#"{"cloudant":"\#(CloudantVersion.current)","couchdb":"\#(CloudantVersion.couchDBCompatibility)"}"#)
        } else {
            print("cloudant \(CloudantVersion.current) (CouchDB \(CloudantVersion.couchDBCompatibility) API)")
        }
    }
}
