internal import ArgumentParser
internal import CloudantOnly

/// Options every `cloudant` command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The folder that holds the stores.", valueName: "DIR"))
    var data: String = StoreDirectory.defaultPath

    var stores: StoreDirectory { StoreDirectory(path: data) }
}
