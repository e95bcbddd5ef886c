internal import ArgumentParser
internal import CloudantOnly

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

    func validate() throws {
        if Set(dataFolders).count > 1 {
            throw ValidationError(
                "--data was given more than once with different folders (\(dataFolders.joined(separator: ", "))); "
                    + "give it once, before or after the command.")
        }
    }
}
