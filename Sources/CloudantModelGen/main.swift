// cloudant-model-gen: the tool behind the CloudantModelPlugin build plugin and the `cloudant-model` command
// plugin. It reads object model files and writes Swift, or checks them.
//
//   cloudant-model-gen generate FILE --out DIR [--access public|internal]
//   cloudant-model-gen validate FILE...
//
// Exit status: 0 ok, 1 internal error, 2 invalid model file, 3 file not found (the CLI's categories).
internal import CloudantBase
internal import CloudantModelSchema
internal import Foundation

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

func readModel(_ path: String) -> ObjectModel {
    guard let data = FileManager.default.contents(atPath: path) else {
        fail("error: \(path): no such file", status: 3)
    }
    do {
        return try ObjectModel(parsing: Array(data))
    } catch let error as CloudantError {
        let issues = error.modelFileIssues?.issues.map { "\(path): \($0.path): \($0.message)" } ?? ["\(path): \(error)"]
        fail(issues.map { "error: " + $0 }.joined(separator: "\n"), status: 2)
    } catch {
        fail("error: \(path): \(error)", status: 1)
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    fail("usage: cloudant-model-gen generate FILE --out DIR [--access public|internal] | validate FILE...", status: 2)
}
arguments.removeFirst()

switch command {
case "generate":
    var file: String?
    var output: String?
    var access = "public"
    var index = 0
    while index < arguments.count {
        switch arguments[index] {
        case "--out":
            index += 1
            output = index < arguments.count ? arguments[index] : nil
        case "--access":
            index += 1
            access = index < arguments.count ? arguments[index] : ""
        default:
            file = arguments[index]
        }
        index += 1
    }
    guard let file, let output, ["public", "internal"].contains(access) else {
        fail("usage: cloudant-model-gen generate FILE --out DIR [--access public|internal]", status: 2)
    }
    let model = readModel(file)
    let name = SwiftGenerator.outputFileName(forModelFile: URL(fileURLWithPath: file).lastPathComponent)
    let source = SwiftGenerator(model: model, sourceFile: URL(fileURLWithPath: file).lastPathComponent, accessLevel: access).source
    do {
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let target = URL(fileURLWithPath: output).appendingPathComponent(name)
        // Leave an unchanged file alone so the build does not recompile what did not change.
        if FileManager.default.contents(atPath: target.path) != Data(source.utf8) {
            try Data(source.utf8).write(to: target, options: .atomic)
        }
        print(target.path)
    } catch {
        fail("error: cannot write \(name) in \(output): \(error)", status: 1)
    }
case "validate":
    guard !arguments.isEmpty else { fail("usage: cloudant-model-gen validate FILE...", status: 2) }
    for file in arguments {
        let model = readModel(file)
        let entities = model.current.entities.map(\.name).joined(separator: ", ")
        print("\(file): ok: model \(model.name), \(model.versions.count) version(s), current \(model.current.version): \(entities)")
    }
default:
    fail("error: unknown command '\(command)'; use generate or validate", status: 2)
}
