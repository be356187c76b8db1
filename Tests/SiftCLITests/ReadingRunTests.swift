import Foundation
import Testing
@testable import SiftCLI

/// Every reading command runs through `ReadingRun`: an input that cannot be read is one
/// `pbsift: PATH: reason` line on standard error and exit status 2, whatever the command or format.
@Suite struct ReadingRunTests {
    /// What a command needs beside its inputs to run at all.
    static let extra: [String: [String]] = ["correlate": ["--emit-query", "loki"], "show": ["1"]]

    @Test func everyReadingCommandReportsAnUnreadableInputTheSameWay() throws {
        let missing = try makeTempDir().appendingPathComponent("missing.zip").path
        let logs = try makeTempDir().appendingPathComponent("api.log")
        try Data("127.0.0.1 - - [29/Nov/2026:10:15:02 +0000] \"GET / HTTP/1.1\" 200 2\n".utf8).write(to: logs)
        var checked: [String] = []
        for spec in PBSift.specs where spec.commonOptions && spec.arguments.contains(where: { $0.name == "input" }) {
            for format in spec.formats {
                // A batch's lines are one per input: correlate joins each with logs there.
                let extra = spec.name == "correlate" && format == "jsonl" ? ["--logs", logs.path] : Self.extra[spec.name] ?? []
                let r = runCLI([spec.name, "-f", format, missing] + extra)
                #expect(r.status == 2, "\(spec.name) -f \(format): \(r.err)")
                #expect(r.err.hasPrefix("pbsift: \(missing): "), "\(spec.name) -f \(format): \(r.err)")
            }
            checked.append(spec.name)
        }
        #expect(Set(checked).isSuperset(of: ["report", "show", "inspect", "verify", "waterfall", "correlate", "records", "har"]))
    }

    @Test func aSessionThatMatchesNothingIsAUsageError() throws {
        let session = try Fixture.write([Fixture.header()])
        for command in ["waterfall", "report", "records"] {
            let r = runCLI([command, "--session", "ses_nomatch", session])
            #expect(r.status == 64, "\(command)")
            #expect(r.err.hasPrefix("pbsift: --session: no session matches 'ses_nomatch'"), "\(command): \(r.err)")
        }
    }
}
