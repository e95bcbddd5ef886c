// `swift package cloudant-model validate [FILE...]`: checks object model files; with no file, every
// `*.cloudantmodel.json` of the package's targets.
import Foundation
import PackagePlugin

@main
struct CloudantModelCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        guard arguments.first == "validate" else {
            Diagnostics.error("usage: swift package cloudant-model validate [FILE...]")
            throw CommandError.usage
        }
        var files = Array(arguments.dropFirst())
        if files.isEmpty {
            for target in context.package.targets {
                guard let target = target as? SourceModuleTarget else { continue }
                files += target.sourceFiles.map(\.url).filter { $0.lastPathComponent.hasSuffix(".cloudantmodel.json") }.map(\.path)
            }
        }
        guard !files.isEmpty else {
            Diagnostics.warning("no *.cloudantmodel.json file in the package's targets")
            return
        }
        let tool = try context.tool(named: "CloudantModelGen")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = ["validate"] + files
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Diagnostics.error("model validation failed (above)")
            throw CommandError.invalidModel
        }
    }

    enum CommandError: Error {
        case usage
        case invalidModel
    }
}
