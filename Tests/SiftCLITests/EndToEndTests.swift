import Foundation
import Testing
@testable import SiftCLI

/// Runs the built `pbsift` binary (`.build/debug/pbsift`, built by `swift build --build-tests`).
struct Binary {
    static let url: URL? = {
        let env = ProcessInfo.processInfo.environment["PBSIFT_BINARY"].map { URL(fileURLWithPath: $0) }
        let candidates = [
            env, packageRoot.appendingPathComponent(".build/debug/pbsift"),
            Bundle.main.bundleURL.appendingPathComponent("pbsift"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("pbsift")
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    struct Result {
        var status: Int32
        var out: String
        var err: String
    }

    /// Runs the binary with `args`, optional standard input, and an environment without colour hints.
    static func run(
        _ args: [String], stdin: String? = nil, env: [String: String] = [:], closeStdout: Bool = false,
        cwd: URL? = nil
    ) throws -> Result {
        guard let url else { throw UsageError("pbsift binary not built: run `swift build --build-tests`") }
        let p = Process()
        p.executableURL = url
        p.arguments = args
        if let cwd { p.currentDirectoryURL = cwd }
        var environment = ["PATH": "/usr/bin:/bin"]
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        if closeStdout { try out.fileHandleForReading.close() }
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inp.fileHandleForWriting.close()
        let o = closeStdout ? Data() : out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, out: String(decoding: o, as: UTF8.self),
            err: String(decoding: e, as: UTF8.self))
    }
}

@Suite(.serialized) struct EndToEndTests {
    @Test func binaryExists() {
        #expect(Binary.url != nil, "pbsift binary not found under .build/debug")
    }

    @Test func helpAndVersion() throws {
        let help = try Binary.run(["--help"])
        #expect(help.status == 0 && help.err.isEmpty)
        #expect(help.out == runCLI(["--help"]).out)
        #expect(help.out.hasPrefix("OVERVIEW: "))
        let none = try Binary.run([])
        #expect(none.status == 0 && none.out == help.out)
        let cmd = try Binary.run(["inspect", "--help"])
        #expect(cmd.status == 0 && cmd.out.contains("USAGE: pbsift inspect [<options>] <input> ..."))
        let v = try Binary.run(["--version"])
        #expect(v.status == 0 && v.out.hasPrefix("0.2.0\ninflate: ") && v.out.contains("\nsha256: ") && v.err.isEmpty)
        let portable = try Binary.run(["--version"], env: ["PBSIFT_PORTABLE": "1"])
        #expect(portable.out.hasPrefix("0.2.0\ninflate: zlib ") && portable.out.contains("\nsha256: portable"))
    }

    @Test func usageError() throws {
        let r = try Binary.run(["inspect", "--formt", "json", "x"])
        #expect(r.status == 64)
        #expect(r.out.isEmpty)
        #expect(
            r.err
                == "pbsift: --formt: unknown option; did you mean '--format'?\nUsage: pbsift inspect [<options>] <input> ...\n  See 'pbsift inspect --help' for more information.\n"
        )
        let bad = try Binary.run(["inspect", "--format", "png", "x"])
        #expect(bad.status == 64)
        #expect(
            bad.err.hasPrefix(
                "pbsift: --format <format>: invalid value 'png'; expected one of 'text', 'json', 'csv', 'markdown', 'jsonl', 'sarif' or 'junit'\n"
            ))
    }

    @Test(arguments: ["text", "json", "csv", "markdown"])
    func inspectEveryFormat(_ format: String) throws {
        let path = try Fixture.write(Fixture.clean)
        let r = try Binary.run(["inspect", "--format", format, path])
        #expect(r.status == 0)
        #expect(r.err.isEmpty)
        #expect(r.out.contains("5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13"))
        #expect(!r.out.contains("\u{1B}"), "no colour when stdout is not a terminal")
        #expect(r.out == runCLI(["inspect", "--format", format, path]).out)
    }

    @Test func inspectJSONFieldByField() throws {
        let path = try Fixture.write(Fixture.withFrame)
        let r = try Binary.run(["inspect", "--json", path])
        #expect(r.status == 1)
        let doc = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] ?? [:]
        #expect((doc["tool"] as? [String: Any])?["version"] as? String == "0.2.0")
        let input = (doc["inputs"] as? [[String: Any]])?.first ?? [:]
        #expect(input["path"] as? String == path && input["status"] as? String == "ok" && input["container"] as? String == "jsonl")
        let session = (doc["sessions"] as? [[String: Any]])?.first ?? [:]
        #expect(session["sessionId"] as? String == Fixture.sessionId)
        #expect(session["recordCount"] as? Int == 3)
        #expect((session["records"] as? [String: Int])?["frame"] == 1)
        let findings = doc["findings"] as? [[String: Any]] ?? []
        let frame = findings.first { $0["rule"] as? String == "policy.frame-in-export" }
        #expect(frame?["severity"] as? String == "high")
        #expect(frame?["seq"] as? Int == 3)
        #expect(frame?["input"] as? String == path)
    }

    @Test func exitCodes() throws {
        let clean = try Fixture.write(Fixture.clean)
        let frame = try Fixture.write(Fixture.withFrame)
        #expect(try Binary.run(["inspect", clean]).status == 0)
        #expect(try Binary.run(["inspect", frame]).status == 1)
        #expect(try Binary.run(["inspect", "--fail-on", "never", frame]).status == 0)
        let missing = try Binary.run(["inspect", "-f", "json", clean, "/nonexistent/pbsift-e2e"])
        #expect(missing.status == 2)
        #expect(missing.out.contains("\"unreadable\""))
        #expect(try Binary.run(["inspect", frame, "/nonexistent/pbsift-e2e"]).status == 2)
        #expect(try Binary.run(["inspect"]).status == 64)
        #expect(try Binary.run(["nosuch"]).status == 64)
    }

    @Test func standardInput() throws {
        let r = try Binary.run(["inspect", "--json", "-"], stdin: Fixture.withFrame.dropFirst().joined(separator: "\n") + "\n")
        let doc = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] ?? [:]
        #expect((doc["inputs"] as? [[String: Any]])?.first?["path"] as? String == "-")
        #expect(r.status == 1)
        #expect((doc["sessions"] as? [[String: Any]])?.first?["recordCount"] as? Int == 3)
    }

    @Test func colourOnlyWhenAsked() throws {
        let path = try Fixture.write(Fixture.withFrame)
        #expect(try Binary.run(["inspect", "--color", "always", path]).out.contains("\u{1B}["))
        #expect(try !Binary.run(["inspect", "--color", "auto", path], env: ["NO_COLOR": "1"]).out.contains("\u{1B}["))
    }

    @Test func outputFile() throws {
        let path = try Fixture.write(Fixture.clean)
        let dir = try makeTempDir()
        let target = dir.appendingPathComponent("report.csv").path
        let r = try Binary.run(["inspect", "-f", "csv", "-o", target, path])
        #expect(r.status == 0 && r.out.isEmpty)
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("sessionId,input,"))
        let missing = dir.appendingPathComponent("no/such/report").path
        let bad = try Binary.run(["inspect", "-o", missing, path])
        #expect(bad.status == 2)
        #expect(bad.err.hasPrefix("pbsift: \(missing): "))
    }

    /// A reader that goes away (`| head`) ends the run quietly with the status so far.
    @Test func closedStdoutEndsQuietly() throws {
        let r = try Binary.run(["completions", "bash"], closeStdout: true)
        #expect(r.status == 0)
        #expect(r.err.isEmpty)
        let path = try Fixture.write(Fixture.withFrame)
        let f = try Binary.run(["inspect", path], closeStdout: true)
        #expect(f.status == 1)
        #expect(f.err.isEmpty)
    }
}
