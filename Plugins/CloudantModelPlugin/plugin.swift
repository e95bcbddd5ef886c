// The build-tool plugin: every `*.cloudantmodel.json` file of a target becomes Swift entity types
// (`<Name>+Model.swift`, generated into the plugin's work directory at build time, never checked in).
import Foundation
import PackagePlugin

@main
struct CloudantModelPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "CloudantModelGen")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("Generated")
        return target.sourceFiles.filter { $0.url.lastPathComponent.hasSuffix(".cloudantmodel.json") }.map { file in
            let name = Self.outputFileName(file.url.lastPathComponent)
            return .buildCommand(
                displayName: "Generating entity types from \(file.url.lastPathComponent)",
                executable: tool.url,
                arguments: ["generate", file.url.path, "--out", output.path],
                inputFiles: [file.url],
                outputFiles: [output.appendingPathComponent(name)])
        }
    }

    /// `Recipes.cloudantmodel.json` → `Recipes+Model.swift` (as `SwiftGenerator.outputFileName` names it).
    static func outputFileName(_ file: String) -> String {
        String(file.dropLast(".cloudantmodel.json".count)) + "+Model.swift"
    }
}
