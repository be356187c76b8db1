import Foundation
import Testing
@testable import SiftCLI

/// A spec exercising every kind of option.
let testSpec = CommandSpec(
    name: "probe", abstract: "Test command.",
    arguments: [ArgumentSpec("input", help: "Inputs.", variadic: true)],
    options: [
        OptionSpec("logs", short: "l", value: "path", help: "Server logs.", repeatable: true, takesPath: true),
        OptionSpec("verbose", short: "v", help: "More.")
    ],
    formats: ["text", "json", "csv", "markdown"])

struct ParseCase: Sendable, CustomTestStringConvertible {
    var args: [String]
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String]
    var testDescription: String { args.joined(separator: " ") }
}

struct ErrorCase: Sendable, CustomTestStringConvertible {
    var args: [String]
    var message: String
    var testDescription: String { args.joined(separator: " ") }
}

@Suite struct ParserTests {
    static let cases: [ParseCase] = [
        ParseCase(args: ["a"], positionals: ["a"]),
        ParseCase(args: ["--format=json", "a"], values: ["format": ["json"]], positionals: ["a"]),
        ParseCase(args: ["--format", "json", "a"], values: ["format": ["json"]], positionals: ["a"]),
        ParseCase(args: ["-f", "csv", "a"], values: ["format": ["csv"]], positionals: ["a"]),
        ParseCase(args: ["-fcsv", "a"], values: ["format": ["csv"]], positionals: ["a"]),
        ParseCase(args: ["-qv", "a"], flags: ["quiet", "verbose"], positionals: ["a"]),
        ParseCase(args: ["-qf", "json", "a"], values: ["format": ["json"]], flags: ["quiet"], positionals: ["a"]),
        ParseCase(args: ["a", "--", "--format", "-q"], positionals: ["a", "--format", "-q"]),
        ParseCase(args: ["-", "b"], positionals: ["-", "b"]),
        ParseCase(args: ["-f", "text", "--format", "json", "a"], values: ["format": ["json"]], positionals: ["a"]),
        ParseCase(
            args: ["-l", "x.log", "--logs=y.log", "--logs", "z.log", "a"],
            values: ["logs": ["x.log", "y.log", "z.log"]], positionals: ["a"]),
        ParseCase(args: ["a", "--json", "b"], flags: ["json"], positionals: ["a", "b"]),
        ParseCase(args: ["--output", "-", "a"], values: ["output": ["-"]], positionals: ["a"]),
        ParseCase(
            args: ["--max-input-bytes", "2G", "--fail-on=never", "a"],
            values: ["max-input-bytes": ["2G"], "fail-on": ["never"]], positionals: ["a"])
    ]

    @Test(arguments: cases)
    func parses(_ c: ParseCase) throws {
        guard case .options(let p) = try ArgvParser(spec: testSpec).parse(c.args) else {
            Issue.record("expected options")
            return
        }
        #expect(p.values == c.values)
        #expect(p.flags == c.flags)
        #expect(p.positionals == c.positionals)
        #expect(p.argument("input") == c.positionals)
    }

    static let errors: [ErrorCase] = [
        ErrorCase(args: ["--formt", "json", "a"], message: "pbsift: --formt: unknown option; did you mean '--format'?"),
        ErrorCase(args: ["--jsno", "a"], message: "pbsift: --jsno: unknown option; did you mean '--json'?"),
        ErrorCase(args: ["-json", "a"], message: "pbsift: -json: unknown option; did you mean '--json'?"),
        ErrorCase(args: ["-x", "a"], message: "pbsift: -x: unknown option"),
        ErrorCase(
            args: ["--format=", "a"],
            message: "pbsift: --format <format>: invalid value ''; expected one of 'text', 'json', 'csv' or 'markdown'"),
        ErrorCase(args: ["--zzzzzzzz", "a"], message: "pbsift: --zzzzzzzz: unknown option"),
        ErrorCase(
            args: ["--format", "png", "a"],
            message: "pbsift: --format <format>: invalid value 'png'; expected one of 'text', 'json', 'csv' or 'markdown'"),
        ErrorCase(
            args: ["-f", "png", "a"],
            message: "pbsift: --format <format>: invalid value 'png'; expected one of 'text', 'json', 'csv' or 'markdown'"),
        ErrorCase(args: ["a", "--format"], message: "pbsift: --format <format>: missing value"),
        ErrorCase(args: ["--output", "--json", "a"], message: "pbsift: --output <file>: missing value"),
        ErrorCase(args: [], message: "pbsift: probe: missing argument '<input> ...'"),
        ErrorCase(args: ["-q"], message: "pbsift: probe: missing argument '<input> ...'"),
        ErrorCase(args: ["--quiet=yes", "a"], message: "pbsift: --quiet: takes no value"),
        ErrorCase(
            args: ["--fail-on", "severe", "a"],
            message:
                "pbsift: --fail-on <severity>: invalid value 'severe'; expected one of 'info', 'low', 'medium', 'high', 'critical' or 'never'"
        )
    ]

    @Test(arguments: errors)
    func rejects(_ c: ErrorCase) {
        do {
            _ = try ArgvParser(spec: testSpec).parse(c.args)
            Issue.record("expected a usage error")
        } catch let e as UsageError {
            #expect(e.line(command: "probe").string == c.message)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(arguments: [["--help"], ["-h"], ["a", "--help"], ["--formt", "-h"], ["-f", "png", "--help"]])
    func helpAnywhere(_ args: [String]) throws {
        guard case .help = try ArgvParser(spec: testSpec).parse(args) else {
            Issue.record("expected help")
            return
        }
    }

    /// Too few arguments: the message names the one left without a value, not one that has it.
    @Test func aMissingArgumentIsTheOneNotGiven() {
        #expect(runCLI(["show", "export.zip"]).err.hasPrefix("pbsift: show: missing argument '<request>'"))
        #expect(runCLI(["diff", "golden.zip"]).err.hasPrefix("pbsift: diff: missing argument '<after>'"))
        #expect(runCLI(["diff"]).err.hasPrefix("pbsift: diff: missing argument '<before>'"))
        #expect(runCLI(["show"]).err.hasPrefix("pbsift: show: missing argument '<input> ...'"))
    }

    @Test func helpAfterDoubleDashIsPositional() throws {
        guard case .options(let p) = try ArgvParser(spec: testSpec).parse(["--", "--help"]) else {
            Issue.record("expected options")
            return
        }
        #expect(p.positionals == ["--help"])
    }

    @Test func fixedArgumentsAndExtras() throws {
        let spec = CompletionsCommand.spec
        guard case .options(let p) = try ArgvParser(spec: spec).parse(["zsh"]) else {
            Issue.record("expected options")
            return
        }
        #expect(p.argument("shell") == ["zsh"])
        #expect(throws: UsageError.self) { try ArgvParser(spec: spec).parse(["zsh", "bash"]) }
        #expect(throws: UsageError.self) { try ArgvParser(spec: spec).parse(["--json", "zsh"]) }
    }

    @Test func everyCommandTableIsConsistent() {
        for spec in PBSift.specs {
            let all = spec.allOptions
            #expect(Set(all.map(\.name)).count == all.count, "duplicate long name in \(spec.name)")
            let shorts = all.compactMap(\.short)
            #expect(Set(shorts).count == shorts.count, "duplicate short name in \(spec.name)")
            #expect(all.last?.name == "help")
            for o in all {
                #expect(!o.help.isEmpty)
                #expect(o.name == o.name.lowercased() && !o.name.contains(" "))
                if let d = o.defaultValue, let allowed = o.allowed { #expect(allowed.contains(d)) }
            }
            if spec.commonOptions { #expect(!spec.formats.isEmpty) }
        }
        #expect(Set(PBSift.specs.map(\.name)).count == PBSift.specs.count)
    }

    @Test func suggestions() {
        #expect(Suggest.closest(to: "--formt", in: ["--format", "--fail-on"]) == "--format")
        #expect(Suggest.closest(to: "--out", in: ["--output", "--json"]) == "--output")
        #expect(Suggest.closest(to: "--quite", in: ["--quiet", "--json"]) == "--quiet")
        #expect(Suggest.closest(to: "--banana", in: ["--quiet", "--json"]) == nil)
        #expect(Suggest.closest(to: "inpsect", in: ["inspect", "verify"]) == "inspect")
        #expect(Suggest.distance("kitten", "sitting") == 3)
        #expect(Suggest.distance("", "abc") == 3)
    }

    @Test func byteSizes() {
        #expect(ByteSize.parse("1048576") == 1_048_576)
        #expect(ByteSize.parse("64K") == 65_536)
        #expect(ByteSize.parse("512m") == 512 << 20)
        #expect(ByteSize.parse("2G") == 2 << 30)
        #expect(ByteSize.parse("2GiB") == 2 << 30)
        #expect(ByteSize.parse("1T") == 1 << 40)
        #expect(ByteSize.parse("0") == nil)
        #expect(ByteSize.parse("-5") == nil)
        #expect(ByteSize.parse("G") == nil)
        #expect(ByteSize.parse("1.5G") == nil)
        #expect(ByteSize.parse("99999999999999999999G") == nil)
        #expect(ByteSize.parse("9000000000G") == nil)
        #expect(ByteSize.describe(1 << 30) == "1G")
        #expect(ByteSize.describe(1000) == "1000")
        #expect(ByteSize.describe(1536) == "1536")
    }
}

/// Typed option values: every option whose value has a kind is checked by the parser, and every bad
/// value gets the one message and exit 64, whatever the command.
@Suite struct OptionValueTests {
    /// The first of a few hostile values that `kind` rejects.
    static func badValue(for kind: ValueKind) -> String? {
        ["(", "-_", "", "nan", "1e999"].first { kind.parse($0) == nil }
    }

    @Test func everyTypedOptionRejectsABadValueWithTheOneTemplate() {
        var checked = 0
        for spec in PBSift.specs {
            for o in spec.allOptions where o.valueName != nil {
                if case .text = o.kind { continue }
                guard let bad = Self.badValue(for: o.kind) else {
                    Issue.record("no bad value for --\(o.name) of \(spec.name)")
                    continue
                }
                let r = runCLI([spec.name, "--\(o.name)=\(bad)", "x"])
                let expected = UsageError.invalid(bad, for: o).line(command: spec.name).string
                #expect(r.status == 64, "\(spec.name) --\(o.name)")
                #expect(r.err.hasPrefix("\(expected)\nUsage: pbsift \(spec.name) "), "\(spec.name) --\(o.name): \(r.err)")
                #expect(r.err.hasPrefix("pbsift: --\(o.name) "), "\(spec.name) --\(o.name): \(r.err)")
                checked += 1
            }
        }
        #expect(checked >= 30)
    }

    @Test func typedValuesAreKept() throws {
        guard
            case .options(let p) = try ArgvParser(spec: WaterfallCommand.spec).parse(
                ["--slowest", "3", "--min-duration", "250", "--since", "2026-11-29T10:15:02Z", "--max-input-bytes", "2M", "x"])
        else {
            Issue.record("expected options")
            return
        }
        #expect(p.int("slowest") == 3)
        #expect(p.seconds("min-duration") == 0.25)
        #expect(p.time("since") != nil)
        #expect(p.bytes("max-input-bytes") == 2 << 20)
        #expect(p.int("min-duration") == nil)
    }

    static let messages: [(ValueKind, String, String)] = [
        (.int(1...Int.max), "0", "a positive whole number"),
        (.int(0...1000), "1001", "a whole number from 0 to 1000"),
        (.seconds(0...604800), "-1", "a number of seconds from 0 to 604800"),
        (.milliseconds, "inf", "a number of milliseconds, such as 500"),
        (.bytes, "1.5G", "a number of bytes, such as 512M or 2G"),
        (.time, "yesterday", "an RFC 3339 time such as 2026-11-29T10:15:02Z"),
        (.regex, "(", "a regular expression"),
        (.choice(["a", "b"]), "c", "one of 'a' or 'b'")
    ]

    @Test func expectations() {
        for (kind, bad, expected) in Self.messages {
            #expect(kind.parse(bad) == nil, "\(bad)")
            #expect(kind.expectation(for: bad) == expected)
        }
    }
}
