// SiftCLI: the option tables, the parser, help, man page and completions generated from them, the
// commands, exit statuses, terminal colour and progress. Never exits the process; `pbsift/main.swift`
// does. May import: SiftCore, SiftVerify, SiftWaterfall, SiftCorrelate, SiftArchive, Foundation.

import Foundation
import SiftArchive
import SiftCore
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The command-line entry point: dispatch to a subcommand, print help, version and usage errors.
public enum PBSift {
    /// The version `pbsift --version` prints and every JSON report carries in `tool.version`.
    public static let version = ToolInfo.version

    /// One line, the OVERVIEW of `pbsift --help` and the man page's NAME.
    public static let abstract = "A forensic analyzer for Palbe debug-console session exports."

    /// Paragraphs after the overview of `pbsift --help`.
    public static let discussion = """
        pbsift reads exports as they leave a device (a folder, .zip, .tar, .tar.gz, a session \
        file .jsonl or .jsonl.gz, or - for JSON Lines on standard input), checks them, and \
        reports what they hold. Inputs are untrusted: nothing is extracted to disk, no link is \
        followed, and every read is bounded.
        """

    /// Every subcommand, in help order. One line per command: keep this a plain array literal.
    public static let commands: [any SiftCommand.Type] = [
        ReportCommand.self,
        ShowCommand.self,
        InspectCommand.self,
        VerifyCommand.self,
        WaterfallCommand.self,
        CorrelateCommand.self,
        DiffCommand.self,
        MergeCommand.self,
        RecordsCommand.self,
        ScrubCommand.self,
        HARCommand.self,
        RulesCommand.self,
        CompletionsCommand.self
    ]

    /// The specs of every command, in help order.
    public static var specs: [CommandSpec] { commands.map { $0.spec } }

    /// Runs pbsift as a process: real standard output (buffered) and error, terminal detection,
    /// environment and `COLUMNS`. SIGPIPE is ignored; when the reader of standard output goes away
    /// (`| head`), further output is dropped and the exit status is the command's so far.
    public static func main(_ argv: [String]) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let env = ProcessInfo.processInfo.environment
        let stdoutTTY = isatty(1) != 0
        let io = CommandIO(
            stdout: .descriptor(1, label: "standard output"),
            stderr: .descriptor(2, label: "standard error", buffered: false), stdoutIsTTY: stdoutTTY,
            stderrIsTTY: isatty(2) != 0, environment: env,
            columns: terminalColumns(env: env, tty: stdoutTTY))
        var status = run(arguments: Array(argv.dropFirst()), io: io)
        if let failure = io.stdout.finish() {
            io.err(failure.line)
            if status == ExitStatus.ok.rawValue || status == ExitStatus.findings.rawValue {
                status = ExitStatus.incomplete.rawValue
            }
        }
        return status
    }

    /// `COLUMNS` when set to a sane number, else the terminal's width, else 100.
    static func terminalColumns(env: [String: String], tty: Bool) -> Int {
        if let c = env["COLUMNS"].flatMap({ Int($0) }), (20...1000).contains(c) { return c }
        #if canImport(Glibc) || canImport(Darwin)
            if tty {
                var ws = winsize()
                if ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col >= 20 { return Int(ws.ws_col) }
            }
        #endif
        return 100
    }

    /// Runs one command line (without the program name) against `io`; returns the exit status.
    public static func run(arguments: [String], io: CommandIO) -> Int32 {
        guard let first = arguments.first else {
            io.out(SafeText(program: Help.topLevel(specs)))
            return ExitStatus.ok.rawValue
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h":
            io.out(SafeText(program: Help.topLevel(specs)))
            return ExitStatus.ok.rawValue
        case "--version":
            io.out(SafeText(program: ([version] + Accelerators.engineLines).joined(separator: "\n") + "\n"))
            return ExitStatus.ok.rawValue
        case "help":
            return help(rest, io: io)
        default:
            break
        }
        if first.hasPrefix("-") && first != "-" {
            return topLevelUsageError(ArgvParser.unknownOption(first, candidates: ["--help", "--version"]), io: io)
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            var reason = "unknown subcommand"
            if let s = Suggest.closest(to: first, in: specs.map(\.name) + ["help"]) { reason += "; did you mean '\(s)'?" }
            return topLevelUsageError(UsageError(reason, about: first), io: io)
        }
        return dispatch(command, rest, io: io)
    }

    /// Parses and runs one subcommand.
    static func dispatch(_ command: any SiftCommand.Type, _ args: [String], io: CommandIO) -> Int32 {
        let spec = command.spec
        do {
            switch try ArgvParser(spec: spec).parse(args) {
            case .help:
                io.out(SafeText(program: Help.command(spec)))
                return ExitStatus.ok.rawValue
            case .options(let parsed):
                // A config file found by looking upward changes the defaults (even the gate's
                // --fail-on) without being named: say which one, so it can't do so unseen.
                if spec.allOptions.contains(where: { $0.name == "config" }) {
                    if let named = parsed.value("config") {
                        // Named on the command line: it may lower the gate, and says so.
                        let lowers = try ProjectConfig.load(path: named).lowerings
                        if !lowers.isEmpty {
                            io.err(
                                "pbsift: \(argument: named): this config lowers the gate: \(SafeText(program: lowers.joined(separator: ", ")))\n"
                            )
                        }
                    } else if let found = ProjectConfig.find(from: FileManager.default.currentDirectoryPath) {
                        io.err("pbsift: \(argument: found): defaults read from this config file (--config names another)\n")
                        let lowers = try ProjectConfig.load(path: found).lowerings
                        if !lowers.isEmpty {
                            io.err(
                                "pbsift: \(argument: found): ignored, since a config found by looking upward never lowers the gate: \(SafeText(program: lowers.joined(separator: ", "))); name the file with --config to apply them\n"
                            )
                        }
                    }
                }
                let applied = try ProjectConfig.apply(to: parsed, spec: spec)
                if spec.allOptions.contains(where: { $0.name == "rules" }) { try ProjectConfig.installTeamRules(applied, io: io) }
                return try command.run(applied, io).rawValue
            }
        } catch let e as UsageError {
            return usageError(e, spec: spec, io: io)
        } catch let e as OutputFailure {
            return e.report(io).rawValue
        } catch {
            io.err("pbsift: \(SafeText(program: spec.name)): \(Redactor.verify().text(String(describing: error).untrusted))\n")
            return ExitStatus.incomplete.rawValue
        }
    }

    /// `pbsift help`, `pbsift help <command>`, `pbsift help --man`.
    static func help(_ args: [String], io: CommandIO) -> Int32 {
        guard let name = args.first else {
            io.out(SafeText(program: Help.topLevel(specs)))
            return ExitStatus.ok.rawValue
        }
        if name == "--man" {
            io.out(SafeText(program: ManPage.render()))
            return ExitStatus.ok.rawValue
        }
        if name == "help" || name == "--help" || name == "-h" {
            io.out(SafeText(program: Help.topLevel(specs)))
            return ExitStatus.ok.rawValue
        }
        guard let spec = specs.first(where: { $0.name == name }) else {
            var reason = "unknown subcommand"
            if let s = Suggest.closest(to: name, in: specs.map(\.name)) { reason += "; did you mean '\(s)'?" }
            return topLevelUsageError(UsageError(reason, about: name), io: io)
        }
        io.out(SafeText(program: Help.command(spec)))
        return ExitStatus.ok.rawValue
    }

    /// `pbsift: WHAT: reason` / `Usage: …` / `  See 'pbsift <cmd> --help' for more information.`, exit 64.
    static func usageError(_ e: UsageError, spec: CommandSpec, io: CommandIO) -> Int32 {
        io.err(
            "\(e.line(command: spec.name))\nUsage: \(SafeText(program: spec.usageLine))\n  See 'pbsift \(SafeText(program: spec.name)) --help' for more information.\n"
        )
        return ExitStatus.usage.rawValue
    }

    static func topLevelUsageError(_ e: UsageError, io: CommandIO) -> Int32 {
        io.err("\(e.line(command: "pbsift"))\nUsage: pbsift <subcommand>\n  See 'pbsift --help' for more information.\n")
        return ExitStatus.usage.rawValue
    }
}
