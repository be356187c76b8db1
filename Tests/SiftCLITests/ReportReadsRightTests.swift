import Foundation
import Testing
@testable import SiftCLI
import SiftCore
import SiftWaterfall

/// `pbsift report` as a support engineer reads it: goldens per format on the support case, and one
/// end-to-end check per thing a ticket needs (through the built binary).
@Suite(.serialized) struct ReportReadsRightTests {
    /// Compares `text` with `Golden/<name>` (re-recorded with `PBSIFT_RECORD_GOLDEN=1`).
    func expectGolden(_ text: String, _ name: String) throws { try FrameTests().expectGolden(text, name) }

    /// Runs the binary from the package root, so paths in the output are the relative ones given.
    func report(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> Binary.Result {
        try Binary.run(["report"] + args, stdin: stdin, env: env, cwd: packageRoot)
    }

    static let incident = ["samples/export-incident.zip", "--logs", "samples/logs"]
    static let severalSessions = [
        "samples/export-incident.zip", "samples/ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl",
        "samples/ses_c393fd0e-1cc6-4be5-b836-46bf0324aac3.jsonl.gz", "samples/export-clean"
    ]

    @Test(arguments: [("text", "txt"), ("markdown", "md"), ("json", "json"), ("html", "html"), ("csv", "csv")])
    func goldenPerFormat(_ format: String, _ ext: String) throws {
        let r = try report(Self.incident + ["-f", format, "--fail-on", "never"])
        #expect(r.status == 0, "\(r.err)")
        // Only the note of what each log file gave (beside a text report).
        #expect(r.err.split(separator: "\n").allSatisfy { $0.hasPrefix("note: samples/logs/") }, "\(r.err)")
        try expectGolden(r.out, "report-incident.\(ext)")
    }

    @Test func severalSessionsGolden() throws {
        let r = try report(Self.severalSessions + ["--fail-on", "never"])
        #expect(r.status == 0, "\(r.err)")
        try expectGolden(r.out, "report-sessions.txt")
    }

    @Test func overlappingFailuresShareOneTimeline() throws {
        let o = try report(Self.incident + ["--fail-on", "never"]).out
        #expect(o.contains("around #31, #38 and #42 (3 failures within 10 s of each other)\n"))
        #expect(o.components(separatedBy: "\naround ").count == 2, "one timeline for the three failures")
        #expect(o.components(separatedBy: "device    #37 log info checkout: retrying order").count == 2, "each record once")
        #expect(o.components(separatedBy: "device ▶  #").count == 4, "every failure marked")
        let md = try report(Self.incident + ["-f", "markdown", "--fail-on", "never"]).out
        #expect(md.components(separatedBy: "\n### ").count == 2)
        let json = try JSONDocument(string: try report(Self.incident + ["--json", "--fail-on", "never"]).out)
        let failures = json.root["failures"]?.elements ?? []
        // One item per failed request; the three share one timeline, which each carries.
        #expect(failures.compactMap { $0["seq"]?.int } == [31, 38, 42])
        for f in failures {
            #expect(f["failures"]?.elements.compactMap { $0["seq"]?.int } == [31, 38, 42])
            #expect(f["timeline"]?.elements.filter { $0["failed"]?.bool == true }.count == 3)
        }
    }

    @Test func oneFindingsCount() throws {
        let o = try report(Self.incident + ["--fail-on", "never"]).out
        #expect(o.hasPrefix("pbsift report: 1 input, 1 session, 53 records, 13 findings (8 high, 2 medium, 3 low)\n"))
        #expect(o.contains("11 of the 13 findings are credentials"))
        #expect(o.contains("\nFindings: 13 (8 high, 2 medium, 3 low)\n"))
        #expect(!o.contains("pbsift inspect:"))
        #expect(!o.contains("Findings\nFindings"))
        let md = try report(Self.incident + ["-f", "markdown", "--fail-on", "never"]).out
        #expect(md.components(separatedBy: "## Findings").count == 2, "one Findings heading")
        #expect(md.contains("13 findings (8 high, 2 medium, 3 low)"))
        let json = try JSONDocument(string: try report(Self.incident + ["--json", "--fail-on", "never"]).out)
        #expect(json.root["findings"]?.count == 13)
        #expect(json.root["summary", "total"]?.int == 13)
    }

    @Test func legendAndATimeoutGlyph() throws {
        let o = try report(Self.incident + ["--fail-on", "never"]).out
        #expect(
            o.contains("\nlegend: - blocked  d DNS  t TCP  s TLS  ^ request  = waiting  # download  x no response (timed out or failed)"))
        #expect(o.contains("  #31 POST api.palbase.studio/v1/orders  timed out  30.0 s\n    -^xxxx"))
        let md = try report(Self.incident + ["-f", "markdown", "--fail-on", "never"]).out
        #expect(md.contains("| #31 | POST api.palbase.studio/v1/orders | timed out | 30.0 s |"))
        #expect(md.contains("legend: - blocked"))
    }

    @Test func severalSessionsKeepTheVerdictOnTheFirstScreen() throws {
        let o = try report(Self.severalSessions + ["--fail-on", "never"]).out
        let firstScreen = o.split(separator: "\n", omittingEmptySubsequences: false).prefix(24).joined(separator: "\n")
        for key in ["credentials", "export", "failures", "slowest", "server"] { #expect(firstScreen.contains(key)) }
        #expect(firstScreen.contains("Sessions: 4\n  ses_4fd58165…  com.acme.shop 4.2.0 (512)"))
        #expect(o.contains("  ses_4fd58165… #38 POST api.palbase.studio/v1/orders  503  5.1 s\n"))
        #expect(o.contains("ses_4fd58165… POST api.palbase.studio/v1/orders → 503"), "the verdict names the session")
        let md = try report(Self.severalSessions + ["-f", "markdown", "--fail-on", "never"]).out
        #expect(md.contains("| session | seq | request |"))
        #expect(md.contains("| `ses_4fd58165…` | #38 |"))
    }

    @Test func htmlHasEverySectionAndMarks() throws {
        let h = try report(Self.incident + ["-f", "html", "--fail-on", "never"]).out
        for section in [
            "Verdict", "Sessions", "Inputs", "Failed requests", "Slowest requests", "Waterfall", "Around each failure",
            "Server logs", "Findings"
        ] {
            #expect(h.contains("<h2>\(section)</h2>"), "\(section)")
        }
        #expect(h.contains("white-space:nowrap"))
        #expect(h.contains("<td class=\"ts\">2026-11-29T10:15:52.054Z</td>"))
        // Words, not emoji: a page read where no emoji font is installed still says it.
        #expect(h.contains("<span class=\"mark\">FAIL</span> <b>credentials</b>"))
        #expect(!h.contains("❌") && !h.contains("✅"))
        #expect(h.contains("✖ timed out"))
        // Worst first: every high finding before the first medium, every medium before the first low.
        let rows = h.components(separatedBy: "<tr><td class=\"nw\">").dropFirst().map { String($0.prefix(12)) }
        let order = rows.compactMap { r -> Int? in r.contains("high") ? 3 : r.contains("medium") ? 2 : r.contains("low") ? 1 : nil }
        #expect(order.count == 13)
        #expect(order == order.sorted(by: >))
        #expect(h.contains("🔴 high") && h.contains("🟠 medium") && h.contains("🔵 low"))
    }

    @Test func namesAreShortenedInTheMiddle() {
        #expect(WaterfallFormat.fitMiddle("POST api.palbase.studio/v1/orders/quote", 24) == "POST api.pal…rders/quote")
        #expect(WaterfallFormat.fitMiddle("POST api.palbase.studio/v1/orders", 24) == "POST api.pal…o/v1/orders")
        #expect(WaterfallFormat.fitMiddle("short", 24) == "short")
        #expect(WaterfallFormat.fitMiddle("abcdef", 3) == "abc")
        #expect(WaterfallFormat.fitMiddle("abcdef", 0) == "")
    }

    @Test func skewInWordsAndTheUsersOtherRequests() throws {
        let o = try report(Self.incident + ["--fail-on", "never"]).out
        #expect(o.contains("server clock 2.49 s ahead of the device"))
        #expect(!o.contains("+2.492 s"))
        #expect(o.contains("3 other requests of this user reached the server from elsewhere: req_b3ce9959-4ff1-4b36-b290-9323c28df306, "))
        #expect(o.contains("3 other requests of this user reached the server:\n    req_b3ce9959-4ff1-4b36-b290-9323c28df306\n"))
        #expect(ShowReport.skewWords(-(4 * 3600 + 7 * 60 + 5)) == "server clock 4 h 7 min behind the device")
    }

    @Test func theVerdictIsColouredOnATerminal() throws {
        let coloured = try report(Self.incident + ["--fail-on", "never", "--color", "always"]).out
        #expect(coloured.contains("\u{1B}[31mFAIL\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[32mok  \u{1B}[0m"))
        let plain = try report(Self.incident + ["--fail-on", "never"]).out
        #expect(!plain.contains("\u{1B}["))
    }

    @Test func aHeaderlessStdinSessionHasAnUnknownUser() throws {
        let path = packageRoot.appendingPathComponent("samples/ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl").path
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().joined(separator: "\n") + "\n"
        for format in ["text", "markdown", "html"] {
            let r = try report(["-", "-f", format, "--fail-on", "never"], stdin: lines)
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.contains("unknown: no session header"), "\(format)")
            #expect(!r.out.contains("signed out"), "\(format)")
        }
    }

    @Test func svgWaterfallHasStatusAndTimeColumnsAndMarksFailures() throws {
        let r = try Binary.run(["waterfall", "samples/export-incident.zip", "-f", "svg", "--fail-on", "never"], cwd: packageRoot)
        #expect(r.status == 0, "\(r.err)")
        let svg = r.out
        #expect(svg.contains(">status</text>") && svg.contains(">time</text>"))
        #expect(svg.components(separatedBy: "<g class=\"failed\">").count == 4, "the three failed requests")
        #expect(svg.contains("<text class=\"bad\" x=\"322.00\" y=\"591.00\">✖ timed out</text>"))
        #expect(svg.contains(">✖ 503</text>") && svg.contains(">✖ 403</text>"))
        #expect(svg.contains(">30.0 s</text>"))
        // The report's HTML draws the same waterfall.
        let html = try report(Self.incident + ["-f", "html", "--fail-on", "never"]).out
        #expect(html.contains(">✖ 503</text>"))
    }

    @Test func correlateTextHasNoPlaceholdersAndRightPlurals() throws {
        let all = try Binary.run(["correlate", "samples/export-incident.zip", "--logs", "samples/logs"], cwd: packageRoot).out
        #expect(!all.contains(" - "), "no `-` placeholder")
        #expect(!all.contains("ses_4fd58165-7cbf"), "session ids shortened")
        #expect(all.contains("\nses_4fd58165… #38 POST https://api.palbase.studio/v1/orders → 503  [matched]\n"))
        #expect(all.contains("(40 samples, 1 outlier; from request-id fields)"))
        #expect(all.contains("clock skew: server clock 2.49 s ahead of the device ± "))
        let one = try Binary.run(["correlate", "samples/export-incident.zip", "--logs", "samples/logs/app.txt"], cwd: packageRoot).out
        #expect(one.contains("\nlogs: 1 file, 796 bytes, 7 lines\n"))
        #expect(
            one.contains("\nses_4fd58165… #31 POST https://api.palbase.studio/v1/orders  [client-only"),
            "no `→ -` for a request without a status")
    }

    @Test func waterfallSlowestKeepsTheSessionsStatisticsAndAMissingRequestIsAnError() throws {
        func json(_ args: [String]) throws -> JSONValue {
            let r = try Binary.run(["waterfall", "samples/export-incident.zip", "--json", "--fail-on", "never"] + args, cwd: packageRoot)
            #expect(r.status == 0, "\(r.err)")
            return try JSONDocument(string: r.out).root
        }
        let all = try json([]), three = try json(["--slowest", "3"])
        #expect(three["requests"]?.count == 3)
        #expect(three["summary", "sessions"]?.elements.first?["requests"]?.int == 33)
        #expect(
            three["summary", "sessions"]?.elements.first?["busyMs"]?.double == all["summary", "sessions"]?.elements.first?["busyMs"]?.double
        )
        let missing = try Binary.run(["waterfall", "samples/export-incident.zip", "--request", "999"], cwd: packageRoot)
        #expect(missing.status == 64)
        #expect(missing.err.contains("no request with seq 999 in this export; the nearest requests are seq 48, 50, 52"))
        #expect(missing.out.isEmpty)
    }

    /// A session whose request body nests deeper than verify follows: the check stops there (`verify.bound`).
    static func boundedSession() throws -> String {
        let deep = String(repeating: "[", count: 300) + "{\"note\":\"x\"}" + String(repeating: "]", count: 300)
        let body =
            #"{"encoding":"utf8","size":\#(deep.utf8.count),"text":"\#(deep.replacingOccurrences(of: "\"", with: "\\\""))","contentType":"application/json"}"#
        let network =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"POST","url":"https://api.example.test/v1/x","state":"success","statusCode":200,"request":{"body":\#(body)}}"#
        return try Fixture.write([Fixture.header(), network])
    }

    @Test func aVerifyBoundMakesTheReportIncomplete() throws {
        let path = try Self.boundedSession()
        let r = try report([path, "--fail-on", "never"])
        #expect(r.status == 2, "\(r.err)")
        #expect(r.out.contains("FAIL credentials  Not checked in full: 1 value not checked in full (JSON nested deeper than 256 levels"))
        #expect(r.out.contains("no credential in what was checked."))
        // The same with a baseline that accepts everything: a bound is never accepted away.
        let dir = try makeTempDir()
        let baseline = dir.appendingPathComponent("baseline.json").path
        _ = try Binary.run(["verify", path, "--write-baseline", baseline])
        #expect(try report([path, "--baseline", baseline, "--fail-on", "never"]).status == 2)
    }

    @Test func reportUsesTheBaselinesFingerprintKey() throws {
        // A short password fingerprints as hmac: under the key beside the baseline; report must use that
        // key to match the baseline as verify does, so the accepted finding stays accepted.
        let network =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"POST","url":"https://api.example.test/v1/login","state":"success","statusCode":200,"request":{"body":{"encoding":"utf8","size":23,"text":"{\"password\":\"hunter22\"}","contentType":"application/json"}}}"#
        let path = try Fixture.write([Fixture.header(), network])
        let dir = try makeTempDir()
        let baseline = dir.appendingPathComponent("baseline.json").path
        let written = try Binary.run(["verify", path, "--write-baseline", baseline])
        #expect(written.status == 0, "\(written.err)")
        let v = try Binary.run(["verify", path, "--baseline", baseline, "--json"])
        #expect(v.status == 0, "\(v.out)")
        let r = try report([path, "--baseline", baseline, "--json"])
        #expect(r.status == 0, "\(r.err)")
        let doc = try JSONDocument(string: r.out)
        #expect(doc.root["findings"]?.elements.contains { ($0["rule"]?.string ?? "").hasPrefix("redaction.") } == false)
        #expect(doc.root["verify", "suppressed"]?.int == 1)
    }

    @Test func aBoundsMessageNamesTheOptionThatRaisesIt() throws {
        let r = try report(["samples/ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl", "--max-input-bytes", "2K", "--fail-on", "never"])
        #expect(r.status == 2)
        #expect(r.err.contains("input passes the limit of 2048 bytes (--max-input-bytes raises it)"))
        #expect(r.out.contains("FAIL credentials  Not checked: 1 input not read in full"))
        #expect(r.out.contains("(--max-input-bytes raises it)"))
        #expect(r.out.contains("; 1 record read."))
    }

    /// `verify --config` and `report --config` read the file with the one strict reader: a key it does
    /// not know is an error naming the file and the key (it used to be ignored there).
    @Test(arguments: ["verify", "report"])
    func oneConfigReaderForVerifyAndReport(_ command: String) throws {
        let dir = try makeTempDir()
        let file = dir.appendingPathComponent("team.json").path
        try Data(#"{"extraFields": {"headers": ["X-Team-Key"]}, "allowFingerprint": []}"#.utf8).write(to: URL(fileURLWithPath: file))
        let r = try Binary.run([command, "samples/export-incident.zip", "--config", file], cwd: packageRoot)
        #expect(r.status == 64)
        #expect(r.err.contains("\(file): unknown key 'allowFingerprint'. Did you mean 'allowFingerprints'?"), "\(r.err)")
        // A good file is read for its redaction names, as --extra-field.
        let network =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","method":"GET","url":"https://api.example.test/v1/x","state":"success","statusCode":200,"request":{"headers":[{"name":"X-Team-Key","value":"abc123"}]}}"#
        let path = try Fixture.write([Fixture.header(), network])
        try Data(#"{"extraFields": {"headers": ["X-Team-Key"]}}"#.utf8).write(to: URL(fileURLWithPath: file))
        let good = try Binary.run([command, path, "--config", file, "--json", "--fail-on", "never"], cwd: packageRoot)
        #expect(good.status == 0, "\(good.err)")
        #expect(good.out.contains("redaction.header"))
    }

    /// A timeline that holds less than its time span says so, in every format, with the bound.
    @Test func aTimelineCutShortSaysSo() throws {
        func log(_ seq: Int, _ ms: Int) -> String {
            #"{"type":"log","seq":\#(seq),"ts":"2026-11-29T10:15:0\#(ms / 1000).\#(String(format: "%03d", ms % 1000))Z","level":"info","message":"m\#(seq)"}"#
        }
        var lines = [Fixture.header()]
        for s in 1...40 { lines.append(log(s, 1000 + s * 10)) } // 40 records just before the failure
        lines.append(
            #"{"type":"network","seq":41,"ts":"2026-11-29T10:15:02.000Z","id":"rec_41","url":"https://api.example.test/x","state":"failure","statusCode":500,"duration":0.1}"#
        )
        for s in 42...141 { lines.append(log(s, 2000 + (s - 41) * 10)) } // 100 just after it
        let path = try Fixture.write(lines)
        let text = try Binary.run(["report", path, "--fail-on", "never"])
        #expect(text.out.contains("1 timeline cut short: one keeps at most 60 records (30 before its failure)"), "\(text.out)")
        let md = try Binary.run(["report", path, "-f", "markdown", "--fail-on", "never"])
        #expect(md.out.contains("_1 timeline cut short"))
        let json = try Binary.run(["report", path, "-f", "json", "--fail-on", "never"])
        #expect(try JSONDocument(string: json.out).root["timelinesCutShort"]?.int == 1)
        let html = try Binary.run(["report", path, "-f", "html", "--fail-on", "never"])
        #expect(html.out.contains("<p>1 timeline cut short"))
    }
}
