import Foundation
import SiftArchive
import SiftCore
import Testing
@testable import SiftCLI

/// Help golden files, the top-level dispatch, usage errors, common options, the man page and completions.
@Suite struct FrameTests {
    static let goldenDir = packageRoot.appendingPathComponent("Tests/SiftCLITests/Golden")

    /// Compares `text` with `Golden/<name>`; re-records it when `PBSIFT_RECORD_GOLDEN=1`.
    func expectGolden(_ text: String, _ name: String) throws {
        let url = Self.goldenDir.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["PBSIFT_RECORD_GOLDEN"] == "1" {
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(text == expected, "Golden/\(name) differs; re-record with PBSIFT_RECORD_GOLDEN=1 swift test --filter SiftCLITests")
    }

    @Test func topLevelHelpGolden() throws {
        let r = runCLI(["--help"])
        #expect(r.status == 0 && r.err.isEmpty)
        try expectGolden(r.out, "help.txt")
        #expect(runCLI([]).out == r.out)
        #expect(runCLI(["-h"]).out == r.out)
        #expect(runCLI(["help"]).out == r.out)
    }

    @Test(arguments: PBSift.specs.map(\.name))
    func commandHelpGolden(_ name: String) throws {
        let r = runCLI([name, "--help"])
        #expect(r.status == 0 && r.err.isEmpty)
        try expectGolden(r.out, "help-\(name).txt")
        #expect(runCLI(["help", name]).out == r.out)
        #expect(runCLI([name, "-h"]).out == r.out)
    }

    @Test func helpLayout() {
        for spec in PBSift.specs {
            let help = Help.command(spec)
            for section in ["OVERVIEW:", "USAGE:", "OPTIONS:", "EXIT STATUS:"] { #expect(help.contains(section)) }
            for line in help.split(separator: "\n") { #expect(line.count <= 80, "\(spec.name): \(line)") }
            for o in spec.allOptions { #expect(help.contains("--" + o.name)) }
        }
        let top = Help.topLevel(PBSift.specs)
        #expect(top.contains("SUBCOMMANDS:"))
        for s in ExitStatus.allCases { #expect(top.contains("\n  \(s.rawValue) ")) }
        // Descriptions start at column 26.
        #expect(top.contains("\n  --version               Show the version.\n"))
    }

    @Test func version() {
        let r = runCLI(["--version"])
        // the version, then the engines in use (see Accelerators)
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(r.status == 0 && r.err.isEmpty && lines.count == 4 && lines[0] == "0.2.0" && lines[3].isEmpty)
        #expect(lines[1].hasPrefix("inflate: ") && lines[2].hasPrefix("sha256: "))
        #expect(PBSift.version == "0.2.0")
    }

    @Test func usageErrorsExit64() {
        let cases: [([String], String)] = [
            (
                ["inspect", "--formt", "json", "x"],
                "pbsift: --formt: unknown option; did you mean '--format'?\nUsage: pbsift inspect [<options>] <input> ...\n  See 'pbsift inspect --help' for more information.\n"
            ),
            (
                ["inspect"],
                "pbsift: inspect: missing argument '<input> ...'\nUsage: pbsift inspect [<options>] <input> ...\n  See 'pbsift inspect --help' for more information.\n"
            ),
            (
                ["inpsect", "x"],
                "pbsift: inpsect: unknown subcommand; did you mean 'inspect'?\nUsage: pbsift <subcommand>\n  See 'pbsift --help' for more information.\n"
            ),
            (
                ["--verison"],
                "pbsift: --verison: unknown option; did you mean '--version'?\nUsage: pbsift <subcommand>\n  See 'pbsift --help' for more information.\n"
            ),
            (
                ["help", "nosuch"],
                "pbsift: nosuch: unknown subcommand\nUsage: pbsift <subcommand>\n  See 'pbsift --help' for more information.\n"
            )
        ]
        for (args, err) in cases {
            let r = runCLI(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.out.isEmpty)
            #expect(r.err == err)
        }
        for args in [
            ["inspect", "-f", "png", "x"], ["inspect", "--json", "--format", "csv", "x"],
            ["inspect", "--max-input-bytes", "lots", "x"], ["completions"], ["completions", "tcsh"],
            ["inspect", "--color", "sometimes", "x"]
        ] {
            let r = runCLI(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.err.hasPrefix("pbsift: "))
        }
    }

    @Test func untrustedTextInErrorsIsEscaped() {
        let r = runCLI(["\u{1B}[31mboom"])
        #expect(r.status == 64)
        #expect(!r.err.contains("\u{1B}"))
        #expect(r.err.contains("\\x1b[31mboom"))
    }

    func resolve(_ args: [String], env: [String: String] = [:], stdoutTTY: Bool = false, stderrTTY: Bool = false) throws -> CommonOptions {
        let spec = InspectCommand.spec
        guard case .options(let p) = try ArgvParser(spec: spec).parse(args + ["x"]) else { throw UsageError("help") }
        let io = CommandIO(stdout: { _ in }, stderr: { _ in }, stdoutIsTTY: stdoutTTY, stderrIsTTY: stderrTTY, environment: env)
        return try CommonOptions(p, spec: spec, io: io)
    }

    @Test func commonOptionsResolve() throws {
        let d = try resolve([])
        #expect(d.format == "text" && d.outputPath == nil && d.failOn == .high && !d.quiet && !d.color)
        #expect(d.limits == ReadLimits.default)
        #expect(try resolve(["--json"]).format == "json")
        #expect(try resolve(["--json", "-f", "json"]).format == "json")
        #expect(try resolve(["-o", "r.txt"]).outputPath == "r.txt")
        #expect(try resolve(["-o", "-"]).outputPath == nil)
        #expect(try resolve(["--fail-on", "never"]).failOn == nil)
        #expect(try resolve(["--fail-on", "info"]).failOn == .info)
        #expect(try resolve(["--max-input-bytes", "2G"]).limits.maxInputBytes == 2 << 30)
        // Colour: auto follows the terminal and NO_COLOR; always and never win.
        #expect(try resolve([], stdoutTTY: true).color)
        #expect(try !resolve([], env: ["NO_COLOR": "1"], stdoutTTY: true).color)
        #expect(try resolve([], env: ["NO_COLOR": ""], stdoutTTY: true).color)
        #expect(try !resolve([], env: ["TERM": "dumb"], stdoutTTY: true).color)
        #expect(try !resolve(["-o", "r.txt"], stdoutTTY: true).color)
        #expect(try resolve(["--color", "always"], env: ["NO_COLOR": "1"]).color)
        #expect(try !resolve(["--color", "never"], stdoutTTY: true).color)
        // Progress only on a terminal, and not when quiet.
        #expect(try resolve([], stderrTTY: true).showProgress)
        #expect(try !resolve(["-q"], stderrTTY: true).showProgress)
        #expect(try !resolve([]).showProgress)
    }

    @Test func exitStatusFromOutcome() throws {
        let opts = try resolve([])
        let high = Finding(rule: Rule("policy.frame-in-export", .info, "a test rule").ref, severity: .high, input: "a", message: "m")
        let info = Finding(rule: Rule("integrity.unknown-record-type", .info, "a test rule").ref, severity: .info, input: "a", message: "m")
        #expect(opts.exitStatus(findings: [], incomplete: false) == .ok)
        #expect(opts.exitStatus(findings: [info], incomplete: false) == .ok)
        #expect(opts.exitStatus(findings: [info, high], incomplete: false) == .findings)
        #expect(opts.exitStatus(findings: [high], incomplete: true) == .incomplete)
        #expect(opts.exitStatus(findings: [], incomplete: true) == .incomplete)
        #expect(try resolve(["--fail-on", "info"]).exitStatus(findings: [info], incomplete: false) == .findings)
        #expect(try resolve(["--fail-on", "critical"]).exitStatus(findings: [high], incomplete: false) == .ok)
        #expect(try resolve(["--fail-on", "never"]).exitStatus(findings: [high], incomplete: false) == .ok)
    }

    @Test func writeToFileAndFailure() throws {
        let dir = try makeTempDir()
        let target = dir.appendingPathComponent("report.txt").path
        let c = Capture()
        let io = CommandIO(stdout: { c.out += $0 }, stderr: { c.err += $0 })
        let ok = try resolve(["-o", target])
        #expect(ok.write("hello\n", io: io) == nil)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "hello\n")
        #expect(c.out.isEmpty)
        let missing = dir.appendingPathComponent("missing/dir/report.txt").path
        let bad = try resolve(["-o", missing])
        #expect(bad.write("hello\n", io: io) == .incomplete)
        #expect(c.err.hasPrefix("pbsift: \(missing): "))
    }

    @Test func manPageIsFresh() throws {
        let url = packageRoot.appendingPathComponent("man/pbsift.1")
        let checkedIn = try String(contentsOf: url, encoding: .utf8)
        #expect(checkedIn == ManPage.render(), "man/pbsift.1 is out of date, run `swift run pbsift help --man > man/pbsift.1`")
        #expect(runCLI(["help", "--man"]).out == ManPage.render())
    }

    @Test func manPageContents() {
        let page = ManPage.render()
        for needle in [
            ".Dd ", ".Dt PBSIFT 1", ".Os", ".Sh NAME", ".Sh SYNOPSIS", ".Sh DESCRIPTION", ".Sh EXIT STATUS",
            ".Sh ENVIRONMENT", ".It Ev NO_COLOR", ".It Ev COLUMNS", ".Sh EXAMPLES", ".Sh FILES"
        ] {
            #expect(page.contains(needle), "\(needle)")
        }
        for spec in PBSift.specs {
            #expect(page.contains(".Ss pbsift \(spec.name)\n"))
            for o in spec.options { #expect(page.contains("Fl -\(o.name)")) }
            for (command, _) in spec.examples { #expect(page.contains(ManPage.protect("$ " + command))) }
        }
        for o in CommonOptionTable.options(formats: ["json"]) { #expect(page.contains("Fl -\(o.name)")) }
        for s in ExitStatus.allCases { #expect(page.contains(".It \(s.rawValue)\n")) }
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            #expect(!line.isEmpty, "blank line in mdoc")
        }
        // Every archive problem the walker can report is documented.
        for p in ArchiveProblem.allCases { #expect(page.contains(".It Cm \(p.rawValue)\n"), "\(p.rawValue)") }
    }

    @Test func manPageLintsClean() throws {
        guard
            let mandoc = ["/usr/bin/mandoc", "/usr/local/bin/mandoc", "/opt/homebrew/bin/mandoc"]
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: mandoc)
        p.arguments = ["-T", "lint", "-W", "warning", packageRoot.appendingPathComponent("man/pbsift.1").path]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "mandoc -T lint: \(text)")
    }

    /// Every example in the tables parses: the pbsift part of each command line is valid for its command.
    @Test func examplesParse() throws {
        for spec in PBSift.specs {
            for (command, _) in spec.examples {
                let pipeline = command.components(separatedBy: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let ours = pipeline.first(where: { $0.hasPrefix("pbsift ") }) else {
                    Issue.record("example without pbsift: \(command)")
                    continue
                }
                var words = ours.split(separator: " ").map(String.init)
                if let redirect = words.firstIndex(of: ">") { words = Array(words[..<redirect]) }
                #expect(words.count >= 2 && words[1] == spec.name, "\(command)")
                let result = try ArgvParser(spec: spec).parse(Array(words.dropFirst(2)))
                guard case .options(let parsed) = result else {
                    Issue.record("example asks for help: \(command)")
                    continue
                }
                if spec.commonOptions { _ = try CommonOptions(parsed, spec: spec, io: CommandIO(stdout: { _ in }, stderr: { _ in })) }
            }
        }
    }

    @Test(arguments: Completions.shells)
    func completions(_ shell: String) throws {
        let r = runCLI(["completions", shell])
        #expect(r.status == 0 && r.err.isEmpty)
        for spec in PBSift.specs {
            #expect(r.out.contains(spec.name))
            for o in spec.allOptions { #expect(r.out.contains(o.name), "\(shell): --\(o.name)") }
        }
        #expect(r.out.contains("text json csv markdown"))
        // The script parses in its shell, when that shell is installed.
        let checker: [String: [String]] = [
            "bash": ["/bin/bash", "/usr/bin/bash"], "zsh": ["/bin/zsh", "/usr/bin/zsh"],
            "fish": ["/usr/bin/fish", "/usr/local/bin/fish"]
        ]
        guard let exe = checker[shell]?.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return }
        let dir = try makeTempDir()
        let file = dir.appendingPathComponent("pbsift.\(shell)")
        try Data(r.out.utf8).write(to: file)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["-n", file.path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(shell) -n rejects the completion script")
    }
}
