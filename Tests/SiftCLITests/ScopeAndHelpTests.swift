import Foundation
import Testing
@testable import SiftCLI

/// Small things people type: `records --json`, `--session`/`--since`/`--until` on `report` and
/// `waterfall`, `--slowest` statistics, a `--request` that does not exist, the user of a headerless
/// session, the option a bound names, and help's examples — through the built binary.
@Suite(.serialized) struct ScopeAndHelpTests {
    let incident = "samples/export-incident.zip"
    let previous = "samples/ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl"

    func run(_ args: [String], stdin: String? = nil) throws -> Binary.Result {
        try Binary.run(args, stdin: stdin, cwd: packageRoot)
    }

    func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    @Test func recordsJSONMeansJSONLines() throws {
        let plain = try run(["records", incident])
        let json = try run(["records", "--json", incident])
        #expect(json.status == plain.status)
        #expect(json.out == plain.out && !json.out.isEmpty)
        let clash = try run(["records", "--json", "-f", "csv", incident])
        #expect(clash.status == 64)
        #expect(clash.err.hasPrefix("pbsift: --json: conflicts with '--format csv'"))
    }

    @Test func sessionSinceUntilOnRecordsWaterfallAndReport() throws {
        let one = try run(["records", incident, previous, "--session", "6b0404f2"])
        #expect(one.out.split(separator: "\n").count == 14)
        #expect(!one.out.contains("ses_4fd58165"))

        let wf = try run(["waterfall", "--json", incident, previous, "--session", "ses_4fd58165"])
        let sessions = try json(wf.out)["summary"] as? [String: Any]
        #expect((sessions?["sessions"] as? [Any])?.count == 1)
        #expect(sessions?["requests"] as? Int == 33)

        let window = try run(["waterfall", "--json", incident, "--since", "2026-11-29T10:15:50Z", "--until", "2026-11-29T10:16:00Z"])
        let seqs = (try json(window.out)["requests"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
        #expect(seqs == [31, 34, 36, 38, 40])

        let report = try run(["report", "--json", incident, previous, "--session", "6b0404f2"])
        let doc = try json(report.out)
        #expect((doc["sessions"] as? [Any])?.count == 1)
        #expect(!report.out.contains("ses_4fd58165"))

        let none = try run(["report", incident, "--session", "ses_nosuch"])
        #expect(none.status == 64)
        #expect(none.err.hasPrefix("pbsift: --session: no session matches 'ses_nosuch' in this export"))
        let badTime = try run(["waterfall", incident, "--since", "yesterday"])
        #expect(badTime.status == 64)
    }

    @Test func slowestShowsNButDescribesEveryRequest() throws {
        let r = try run(["waterfall", "--json", "--slowest", "2", incident])
        let doc = try json(r.out)
        #expect((doc["requests"] as? [Any])?.count == 2)
        let summary = doc["summary"] as? [String: Any]
        #expect(summary?["requests"] as? Int == 33)
        #expect((summary?["slowest"] as? [Any])?.count == 2)
    }

    @Test func aRequestThatDoesNotExistIsAnError() throws {
        let r = try run(["waterfall", "--request", "99", incident])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("pbsift: --request: no request with seq 99 in this export; the nearest requests are seq 48, 50, 52"))
        let id = try run(["waterfall", "--request", "req_00000000-0000-4000-8000-000000000000", incident])
        #expect(id.status == 64)
        #expect(id.err.contains("no request id req_00000000-0000-4000-8000-000000000000"))
        #expect(try run(["waterfall", "--request", "38", incident]).status != 64)
    }

    @Test func aHeaderlessSessionHasAnUnknownUser() throws {
        let tail = try String(contentsOf: packageRoot.appendingPathComponent("samples/debug-tail.jsonl"), encoding: .utf8)
        let r = try run(["inspect", "-"], stdin: tail)
        #expect(r.out.contains("(unknown: no session header)"))
        #expect(!r.out.contains("signed out"))
    }

    @Test func aBoundNamesTheOptionThatRaisesIt() throws {
        let r = try run(["inspect", "--max-input-bytes", "1K", "samples/ses_c393fd0e-1cc6-4be5-b836-46bf0324aac3.jsonl.gz"])
        #expect(r.status == 2)
        #expect(r.out.contains("--max-input-bytes raises it"))
    }

    @Test func helpShowsExamplesAndSaysRepeatableOnce() throws {
        for spec in PBSift.specs {
            let r = try run([spec.name, "--help"])
            #expect(r.status == 0)
            #expect(!r.out.contains("(repeatable)"), "\(spec.name)")
            for (command, _) in spec.examples { #expect(r.out.contains(Help.example(command)), "\(spec.name)") }
            #expect(r.out.components(separatedBy: "\n    $ ").count == spec.examples.count + 1, "\(spec.name)")
            if !spec.examples.isEmpty { #expect(r.out.contains("\nEXAMPLES:\n")) }
        }
        let report = try run(["report", "--help"])
        #expect(Help.example("pbsift a 'b c' " + String(repeating: "x ", count: 40)).contains(" \\\n       x"))
        #expect(report.out.components(separatedBy: "Can be repeated.").count == 3)
    }

    @Test func emitQueryOptionsAndANoMatchHint() throws {
        let es = try run([
            "correlate", incident, "--emit-query", "elasticsearch", "--table", "api-*", "--id-field", "req",
            "--fail-on", "never"
        ])
        #expect(es.status == 0)
        #expect(es.out.contains("curl -sS -H 'Content-Type: application/json' \"${ES_URL:-http://localhost:9200}/api-*/_search"))
        #expect(es.out.contains(#"{"terms":{"req":["#))
        let alone = try run(["correlate", incident, "--logs", "samples/logs", "--stream", "{app=\"x\"}"])
        #expect(alone.status == 64)
        #expect(alone.err.hasPrefix("pbsift: --stream: applies only with '--emit-query <platform>'"))
        let bad = try run(["correlate", incident, "--emit-query", "clickhouse", "--table", "x y"])
        #expect(bad.status == 64)
        // Logs that hold none of the session's ids: a hint on standard error.
        let wrong = try run(["correlate", "samples/export-clean", "--logs", "samples/logs/nginx-access.log"])
        #expect(wrong.err.contains("note: none of the 6 request ids of these sessions appears in the given logs"))
        #expect(wrong.err.contains("are these the right logs"))
        let right = try run(["correlate", incident, "--logs", "samples/logs", "--fail-on", "never"])
        #expect(!right.err.contains("note: none of"))
    }

    @Test func colorIsHonouredByEveryTextCommand() throws {
        let esc = "\u{1B}["
        let cases: [[String]] = [
            ["verify", incident], ["correlate", incident, "--logs", "samples/logs"], ["inspect", incident],
            ["waterfall", incident], ["report", incident], ["show", incident, "38"]
        ]
        for args in cases {
            let on = try run(args + ["--color", "always"])
            let off = try run(args + ["--color", "never"])
            #expect(on.out.contains(esc), "\(args[0]) --color always")
            #expect(!off.out.contains(esc), "\(args[0]) --color never")
        }
    }
}
