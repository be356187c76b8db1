import Foundation
import SiftCore
import SiftReport
import SiftVerify

/// `pbsift diff BEFORE AFTER`: this session against one that worked.
public enum DiffCommand: SiftCommand {
    public static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare an export with one that worked: new failures, slower phases.",
        discussion: """
            Reads BEFORE and AFTER (two exports, or the same export twice with --before-session and \
            --after-session) and matches their requests by method, host and route (numbers, UUIDs and \
            ids in the path folded: /v1/orders/{n}), the k-th call of a route against the k-th. It \
            reports new failures (AFTER fails where BEFORE did not), changed status codes, phases whose \
            median is slower beyond noise (DNS, connect, TLS, waiting, download, the whole request: half \
            again and at least 50 ms), requests added and removed, more or fewer calls of a route, \
            request and response header names and JSON body keys added or removed (never values), and \
            error logs whose wording BEFORE never had. Exit status 1 when AFTER has a new failure, so CI \
            can hold a run against a golden one; 0 with "no differences" for two alike.
            """,
        arguments: [
            ArgumentSpec("before", help: "The export that worked (any input pbsift reads).", takesPath: true),
            ArgumentSpec("after", help: "The export to compare with it.", takesPath: true)
        ],
        options: [
            OptionSpec("before-session", value: "id", help: "Only this session of BEFORE: its id or the start of it."),
            OptionSpec("after-session", value: "id", help: "Only this session of AFTER: its id or the start of it.")
        ],
        examples: [
            ("pbsift diff golden.zip export.zip", "What changed since the run that worked."),
            (
                "pbsift diff export.zip export.zip --before-session ses_6b04 --after-session ses_c393",
                "Two launches of one export, side by side."
            ),
            ("pbsift diff golden.zip export.zip -f markdown -o diff.md", "The differences, ready for a ticket.")
        ],
        formats: reporters.map(\.format),
        manSection: """
            With
            .Fl -format Cm json
            the report is one JSON object:
            .Cm before
            and
            .Cm after
            .Pq Cm input , requests ,
            .Cm newFailures ,
            .Cm notCompared
            and
            .Cm changes ,
            each a
            .Cm kind ,
            a
            .Cm route
            and a
            .Cm text .
            The exit status is 1 when AFTER has a new failure, 2 when an input was not read in full.
            """)

    struct Output: Sendable {
        var diff: SessionDiff
        var before: String
        var after: String
    }

    static let reporters: [any Reporter<Output>] = [
        Format.text("text") { r, _ in r.diff.text(before: r.before, after: r.after) },
        Format.text("markdown") { r, _ in r.diff.markdown(before: r.before, after: r.after) },
        Format.json { r, w in w.value(r.diff.json(before: r.before, after: r.after)) }
    ]

    public static func run(_ options: ParsedOptions, _ io: CommandIO) throws -> ExitStatus {
        let before = options.argument("before").first ?? ""
        let after = options.argument("after").first ?? ""
        if before == "-" && after == "-" { throw UsageError("standard input can be one side, not both", about: "-") }
        var sides: [DiffCollector] = []
        var known: [String] = []
        var incomplete = false
        var common: CommonOptions?
        for (path, session) in [(before, options.value("before-session")), (after, options.value("after-session"))] {
            var run = try ReadingRun(options, spec: spec, io: io, scoped: false)
            common = run.common
            let collector = DiffCollector()
            // verify's checks collect each side's credentials (never printed), so a log wording or a
            // name that repeats one is masked too.
            let verify = VerifyAnalysis(config: VerifyConfig())
            verify.keepSecretValues()
            let scope = RecordScope(session: session)
            try run.read([path], analyses: scope.wrap([collector, verify]), matching: scope)
            known += verify.secretValues
            try scope.checkSessionMatched(run.outcome)
            incomplete = incomplete || run.outcome.anyIncomplete
            sides.append(collector)
        }
        guard let common else { return .usage }
        let redactor = Redactor.verify(known: known)
        let diff = SessionDiff(before: sides[0], after: sides[1]).redacted(by: redactor)
        let output = Output(diff: diff, before: redactor.text(before.untrusted).value, after: redactor.text(after.untrusted).value)
        if let failed = common.report(output, with: reporters, io: io) { return failed }
        if incomplete { return .incomplete }
        return diff.newFailures > 0 ? .findings : .ok
    }
}
