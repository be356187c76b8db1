import Foundation
import Testing
@testable import SiftCLI

/// `-o PATH` through the built binary, for every command that takes it: a device or a symbolic
/// link is written as it is, and a failure is `pbsift: PATH: reason` with exit status 2.
@Suite(.serialized) struct OutputFileTests {
    /// Each command that takes `-o`, with the arguments it needs; `@` stands for the input.
    static let commands: [[String]] = [
        ["report", "@"], ["show", "@", "1"], ["inspect", "@"], ["verify", "@"], ["waterfall", "@"], ["records", "@"],
        ["har", "@"], ["correlate", "@", "--logs", "@logs"]
    ]

    static func args(_ command: [String], output: String, input: String) throws -> [String] {
        let logs = URL(fileURLWithPath: input).deletingLastPathComponent().appendingPathComponent("server.log")
        try Data("2026-11-29T10:15:02.010Z INFO GET /v1/orders 200\n".utf8).write(to: logs)
        return command.map { $0 == "@" ? input : $0 == "@logs" ? logs.path : $0 } + ["-o", output]
    }

    @Test(arguments: commands) func devFullIsAWriteErrorAndStaysADevice(_ command: [String]) throws {
        let dev = "/dev/full"
        guard FileManager.default.fileExists(atPath: dev) else { return }
        let input = try Fixture.write(Fixture.withFrame)
        let r = try Binary.run(try Self.args(command, output: dev, input: input))
        #expect(r.status == 2, "\(command): \(r.err)")
        #expect(r.err.contains("pbsift: \(dev): "), "\(command): \(r.err)")
        let type = try FileManager.default.attributesOfItem(atPath: dev)[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial)
    }

    @Test(arguments: commands) func symlinkIsWrittenThrough(_ command: [String]) throws {
        let input = try Fixture.write(Fixture.withFrame)
        let dir = try makeTempDir()
        let target = dir.appendingPathComponent("target.out").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        let link = dir.appendingPathComponent("link.out").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let r = try Binary.run(try Self.args(command, output: link, input: input))
        #expect(r.status != 2, "\(command): \(r.err)")
        #expect(r.out.isEmpty)
        let type = try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType
        #expect(type == .typeSymbolicLink)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(!written.isEmpty && written != "old", "\(command)")
    }

    @Test(arguments: commands) func missingFolderIsAnError(_ command: [String]) throws {
        let input = try Fixture.write(Fixture.clean)
        let dir = try makeTempDir()
        let missing = dir.appendingPathComponent("no/such/out").path
        let r = try Binary.run(try Self.args(command, output: missing, input: input))
        #expect(r.status == 2, "\(command): \(r.err)")
        #expect(r.err.contains("pbsift: \(missing): "), "\(command): \(r.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test(arguments: commands) func regularFileIsReplacedWhole(_ command: [String]) throws {
        let input = try Fixture.write(Fixture.clean)
        let dir = try makeTempDir()
        let target = dir.appendingPathComponent("out").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        let r = try Binary.run(try Self.args(command, output: target, input: input))
        #expect(r.status == 0, "\(command): \(r.err)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) != "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out"], "no temporary file is left")
    }
}
