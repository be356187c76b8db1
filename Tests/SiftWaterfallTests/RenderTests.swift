import Foundation
import SiftCore
import Testing
@testable import SiftWaterfall
import SiftVerify
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The golden fixture: one session with every kind of request, and a second one without header.
enum GoldenFixture {
    static let hostile = "</svg><script>alert(\"x\")</script>'\u{1}\u{1B}[31m|*_`"

    static func report(filter: WaterfallFilter = WaterfallFilter()) throws -> WaterfallReport {
        let c = WaterfallCollector()
        c.beginSession(input: "export.zip", file: "sessions/\(Fx.sessionId).jsonl", sessionId: nil)
        var lines = [Fx.header()]
        lines.append(
            Fx.network(
                seq: 1, id: "rec_602f417c", method: "POST", url: "https://api.palbase.studio/v1/auth/token?client=ios",
                durationMs: 221, endMs: 262, txs: [Fx.newConnection(at: 39)], taskStartMs: 39, taskEndMs: 260,
                category: "auth", label: "auth.refresh", requestId: "req_c4e08e67-b822-463b-8e69-80ee651011cb"))
        lines.append(
            Fx.network(
                seq: 2, id: "rec_17e07fc1", url: "https://api.palbase.studio/v1/flags?keys=palbase.debug_console",
                durationMs: 70, endMs: 650, txs: [Fx.reused(at: 580, wait: 22, dl: 45)], taskStartMs: 580,
                taskEndMs: 650, category: "flags", label: "flags"))
        lines.append(
            Fx.network(
                seq: 3, id: "rec_f9061bfd", url: "https://api.palbase.studio/v1/oauth/callback?code=***&state=xyz",
                durationMs: 102, endMs: 1063,
                txs: [
                    Fx.reused(at: 961, wait: 40, dl: 1, status: 302, url: "https://api.palbase.studio/v1/oauth/start?state=xyz"),
                    Fx.reused(at: 1005, wait: 55, dl: 3, url: "https://api.palbase.studio/v1/oauth/callback?code=***&state=xyz")
                ],
                taskStartMs: 961, taskEndMs: 1066))
        lines.append(
            Fx.network(
                seq: 4, id: "rec_cache01", url: "https://api.palbase.studio/v1/catalog",
                durationMs: 1.2, endMs: 1201,
                txs: [Fx.tx(["fetchStart": 1200, "responseEnd": 1200.75], ["fetchType": "\"localCache\"", "statusCode": "200"])],
                taskStartMs: 1200, taskEndMs: 1201.2))
        lines.append(
            Fx.network(
                seq: 5, id: "rec_grpc01", method: "POST", url: "grpc://orders.acme.example/Orders/Create",
                durationMs: 812, endMs: 2100, txs: [], metrics: false, kind: "custom", category: "app",
                source: "app", label: "grpc"))
        lines.append(
            Fx.network(
                seq: 6, id: "rec_img1", url: "https://cdn.acme.example/img/1.png", durationMs: 1450,
                endMs: 3500, txs: [Fx.newConnection(at: 2050, wait: 300, extra: ["responseBodyBytes": "4800000"])],
                taskStartMs: 2050, taskEndMs: 2450, category: "app", source: "app", label: "image"))
        lines.append(
            Fx.network(
                seq: 7, id: "rec_img2", url: "https://cdn.acme.example/img/2.png", durationMs: 400,
                endMs: 2500, txs: [Fx.newConnection(at: 2100, wait: 296)], taskStartMs: 2100, taskEndMs: 2500,
                category: "app", source: "app", label: "image"))
        lines.append(
            Fx.network(
                seq: 8, id: "rec_clock", url: "https://api.palbase.studio/v1/me", durationMs: 30, endMs: 5040,
                txs: [
                    Fx.tx(
                        [
                            "fetchStart": 5000, "requestStart": 5001, "requestEnd": 5003, "responseStart": 4990,
                            "responseEnd": 5030
                        ], ["reusedConnection": "true", "statusCode": "200"])
                ],
                taskStartMs: 5000, taskEndMs: 5030))
        lines.append(
            Fx.network(
                seq: 9, id: "rec_hostile", method: "GET", url: "https://evil.example/" + hostile + "?token=abc&q=\"1\"",
                durationMs: 60, endMs: 5200, txs: [Fx.reused(at: 5140, wait: 50, dl: 5)], taskStartMs: 5140,
                taskEndMs: 5198, category: hostile, source: "app", label: hostile))
        lines.append(
            Fx.network(
                seq: 10, id: "rec_orders", method: "POST", url: "https://api.palbase.studio/v1/orders/ord_77",
                durationMs: nil, endMs: 9000, txs: [], metrics: false, category: "generated", state: "pending",
                status: nil, label: "pb.orders.create"))
        // A timeout: the request went out, no response came; 3 s later the task failed.
        lines.append(
            Fx.network(
                seq: 11, id: "rec_timeout", method: "POST", url: "https://api.palbase.studio/v1/orders",
                durationMs: 3000, endMs: 8401,
                txs: [
                    Fx.tx(
                        ["fetchStart": 5400, "requestStart": 5400.4, "requestEnd": 5430],
                        ["reusedConnection": "true", "requestBodyBytes": "146"])
                ],
                taskStartMs: 5400, taskEndMs: 8400, category: "generated", state: "failure", status: nil,
                label: "pb.orders.create",
                extra: #","error":{"domain":"NSURLErrorDomain","code":-1001,"description":"The request timed out."}"#))
        for (i, l) in lines.enumerated() { c.add(try Fx.record(i + 1, l)) }
        c.endSession(sessionId: nil, launchedAt: nil)

        // A second session read from standard input: no header.
        c.beginSession(input: "-", file: "-", sessionId: nil)
        c.add(
            try Fx.record(
                1,
                Fx.network(
                    seq: 41, id: "rec_s2a", url: "https://api.palbase.studio/v1/orders/12345", durationMs: 300,
                    endMs: 20_300, txs: [Fx.reused(at: 20_000, wait: 280, dl: 15)], taskStartMs: 20_000, taskEndMs: 20_298)))
        c.add(
            try Fx.record(
                2,
                Fx.network(
                    seq: 42, id: "rec_s2b", url: "https://api.palbase.studio/v1/orders/67890", durationMs: 120,
                    endMs: 22_620, txs: [Fx.reused(at: 22_500, wait: 100, dl: 15)], taskStartMs: 22_500, taskEndMs: 22_618)))
        c.endSession(sessionId: nil, launchedAt: nil)
        let findings = c.finish()
        return WaterfallReport(sessions: c.sessions, findings: findings, filter: filter, redactor: .verify())
    }
}

@Suite struct RenderTests {
    static let goldenDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// Compares with `Golden/<name>`; re-records when `PBSIFT_RECORD_GOLDEN=1`.
    func golden(_ name: String, _ actual: String) throws {
        let source = Self.goldenDir.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["PBSIFT_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.goldenDir, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: source)
            return
        }
        // The checked-in file is authoritative; the bundled copy serves when the sources are not around.
        let bundled = Bundle.module.resourceURL?.appendingPathComponent("Golden").appendingPathComponent(name)
        let url = FileManager.default.fileExists(atPath: source.path) ? source : (bundled ?? source)
        let expected = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(actual == expected, "\(name) differs from its golden file; re-record with PBSIFT_RECORD_GOLDEN=1 if intended")
    }

    @Test func goldenText() throws {
        let r = try GoldenFixture.report()
        try golden("waterfall.txt", WaterfallRender.text(r, columns: 120, color: false))
        try golden("waterfall-80-color.txt", WaterfallRender.text(r, columns: 80, color: true))
    }

    @Test func goldenMarkdown() throws {
        try golden("waterfall.md", WaterfallRender.markdown(try GoldenFixture.report()))
    }

    @Test func goldenJSON() throws {
        try golden("waterfall.json", WaterfallRender.json(try GoldenFixture.report()))
    }

    @Test func goldenCSV() throws {
        try golden("waterfall.csv", WaterfallRender.csv(try GoldenFixture.report()))
    }

    @Test func goldenSVG() throws {
        try golden("waterfall.svg", WaterfallRender.svg(try GoldenFixture.report()))
    }

    @Test func goldenFiltered() throws {
        let r = try GoldenFixture.report(filter: WaterfallFilter(slowest: 3))
        try golden("waterfall-slowest3.txt", WaterfallRender.text(r, columns: 100, color: false))
    }

    @Test func textIsWidthAware() throws {
        let r = try GoldenFixture.report()
        for cols in [40, 80, 132, 200] {
            let out = WaterfallRender.text(r, columns: cols, color: false)
            // Every request row's bar sits between pipes and the row fits the width.
            let rows = out.split(separator: "\n").filter { $0.hasSuffix("|") }
            #expect(!rows.isEmpty)
            for row in rows { #expect(row.count <= max(cols, 90), "\(cols): \(row)") }
        }
    }

    @Test func textHasNoRawControlCharacters() throws {
        let r = try GoldenFixture.report()
        let plain = WaterfallRender.text(r, columns: 100, color: false)
        #expect(!plain.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(plain.contains("\\x1b[31m")) // the hostile escape is shown, not sent
        let colored = WaterfallRender.text(r, columns: 100, color: true)
        // Every ESC is one of our SGR sequences.
        let scalars = Array(colored.unicodeScalars)
        for (i, u) in scalars.enumerated() where u.value == 0x1B {
            var j = i + 1
            #expect(j < scalars.count && scalars[j] == "[")
            j += 1
            while j < scalars.count, ("0"..."9").contains(scalars[j]) { j += 1 }
            #expect(j < scalars.count && scalars[j] == "m")
        }
        #expect(!colored.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0.value != 0x1B })
    }

    @Test func jsonShapeAndNullPhases() throws {
        let text = WaterfallRender.json(try GoldenFixture.report())
        let doc = try JSONDocument(string: text)
        let reqs = try #require(doc.root["requests"]?.elements)
        #expect(reqs.count == 13)
        let first = reqs[0]
        #expect(first["sessionId"]?.string == Fx.sessionId)
        #expect(first["seq"]?.int == 1)
        #expect(first["offsetMs"]?.double == 39)
        #expect(first["durationMs"]?.double == 221)
        #expect(first["start"]?.string == "2026-11-29T10:15:01.039000Z")
        let p = try #require(first["transactions"]?.elements.first?["phases"])
        #expect(p["tls"]?.double == 42)
        let flags = try #require(reqs[1]["transactions"]?.elements.first?["phases"])
        #expect(flags["dns"]?.isNull == true)
        #expect(flags["tcp"]?.isNull == true)
        #expect(flags["tls"]?.isNull == true)
        #expect(flags["waiting"]?.double == 22)
        #expect(reqs[1]["transactions"]?.elements.first?["reusedConnection"]?.bool == true)
        // The hostile URL's token is masked.
        #expect(!text.contains("token=abc"))
        #expect(doc.root["summary", "requests"]?.int == 13)
        #expect((doc.root["findings"]?.count ?? 0) >= 3)
    }

    @Test func csvIsRFC4180() throws {
        let out = WaterfallRender.csv(try GoldenFixture.report())
        #expect(out.hasPrefix("sessionId,seq,recordId,requestId,method,url,"))
        #expect(out.hasSuffix("\r\n"))
        // One row per transaction (redirect: 2), plus one for each request without transactions.
        let rows = out.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 1 + 14)
        #expect(!out.contains("token=abc"))
    }

    @Test func markdownEscapesExportText() throws {
        let out = WaterfallRender.markdown(try GoldenFixture.report())
        #expect(!out.contains("<script"))
        #expect(out.contains("&lt;/svg&gt;&lt;script&gt;"))
        #expect(!out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        // Every table row has the same number of unescaped pipes as its header.
        for line in out.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count
            #expect(cells == 14 || cells == 5 || cells == 6, "\(line)")
        }
    }

    final class Collect: NSObject, XMLParserDelegate {
        var elements: [String] = []
        var attributes: [String] = []
        var text = ""
        var error: Error?
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            elements.append(name)
            attributes += attributeDict.keys
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }
    }

    func parseXML(_ svg: String) -> (ok: Bool, Collect) {
        let p = XMLParser(data: Data(svg.utf8))
        let c = Collect()
        p.delegate = c
        let ok = p.parse() && p.parserError == nil && c.error == nil
        return (ok, c)
    }

    @Test func svgIsWellFormedAndSelfContained() throws {
        let svg = WaterfallRender.svg(try GoldenFixture.report())
        let (ok, c) = parseXML(svg)
        #expect(ok)
        #expect(c.elements.first == "svg")
        for bad in ["script", "a", "image", "foreignObject", "use", "iframe"] { #expect(!c.elements.contains(bad)) }
        #expect(!c.attributes.contains { $0.lowercased().contains("href") || $0.lowercased().hasPrefix("on") })
        #expect(!svg.contains("@import") && !svg.contains("url("))
        // The hostile label survives as text.
        #expect(c.text.contains("</svg><script>alert"))
        #expect(c.elements.contains("title"))
        // The parser check is real: a broken document fails.
        #expect(!parseXML("<svg><g></svg>").ok)
    }

    @Test func svgSurvivesHostileEverything() throws {
        let nasty = [
            "</svg><script>alert(1)</script>", "\"'><!--", "]]><![CDATA[", "\u{0}\u{1}\u{8}\u{B}\u{C}\u{1F}",
            "\u{FFFE}\u{FFFF}", "&amp;&#0;&bogus;", "\u{202E}rtl"
        ]
        for n in nasty {
            let lines = [
                Fx.header(sessionId: n),
                Fx.network(
                    seq: 1, id: n, method: n, url: "https://" + n + "/" + n, durationMs: 28, endMs: 30,
                    txs: [Fx.reused(at: 2, url: n)], category: n, label: n)
            ]
            let (s, f) = try Fx.collect(lines, input: n, file: n)
            let report = WaterfallReport(sessions: s, findings: f, redactor: .verify())
            let svg = WaterfallRender.svg(report)
            let (ok, c) = parseXML(svg)
            #expect(ok, "hostile \(n.debugDescription)")
            #expect(!c.elements.contains("script"))
            let md = WaterfallRender.markdown(report)
            #expect(!md.contains("<script") && !md.contains("<!--"))
            let json = WaterfallRender.json(report)
            #expect((try? JSONDocument(string: json)) != nil)
        }
    }

    @Test func svgScalesToHundredsOfRequests() throws {
        var lines = [Fx.header()]
        for i in 1...600 {
            let at = Double(i) * 37
            lines.append(
                Fx.network(
                    seq: i, id: "rec_\(i)", url: "https://api.acme.example/v1/items/\(i)", durationMs: 120,
                    endMs: at + 120, txs: [Fx.reused(at: at, wait: 100, dl: 10)], taskStartMs: at, taskEndMs: at + 114))
        }
        let (s, f) = try Fx.collect(lines)
        let svg = WaterfallRender.svg(WaterfallReport(sessions: s, findings: f, redactor: .verify()))
        #expect(parseXML(svg).ok)
        #expect(svg.utf8.count < 600 * 1200) // well under a kilobyte and a bit per request
        let summary = WaterfallSummary(sessions: s)
        #expect(summary.endpoints.map(\.key) == ["GET api.acme.example/v1/items/:id"])
        #expect(summary.endpoints.first?.count == 600)
    }
}

@Suite struct CompactJSONTests {
    @Test func compactJSONParsesAndMatchesPretty() throws {
        let r = try GoldenFixture.report()
        let compact = WaterfallRender.json(r, pretty: false)
        #expect(compact.split(separator: "\n").count == 1)
        let a = try JSONDocument(string: compact).root
        let b = try JSONDocument(string: WaterfallRender.json(r)).root
        #expect(a["requests"]?.count == b["requests"]?.count)
        #expect(a["requests"]?.elements.first?.rawText.count ?? 0 > 0)
        #expect(a["summary", "requests"]?.int == 13)
        let empty = WaterfallReport(sessions: [], findings: [], redactor: .verify())
        let e = try JSONDocument(string: WaterfallRender.json(empty)).root
        #expect(e["requests"]?.count == 0)
    }
}

@Suite struct JSONWriterTests {
    @Test func streamedRequestsEqualTheJSONOutTree() throws {
        let r = try GoldenFixture.report()
        for pretty in [true, false] {
            for s in r.sessions {
                for req in s.requests {
                    var fast = ""
                    WaterfallRender.writeRequest(req, into: &fast, pretty: pretty, indent: 4)
                    var tree = ""
                    WaterfallRender.requestJSON(req).write(into: &tree, pretty: pretty, indent: 4)
                    #expect(fast == tree)
                }
            }
            // Every escape JSONOut knows, in every string field.
            var odd = WaterfallRequest(input: "i", file: "f", line: 1)
            let weird = "q\"b\\n\nr\rt\t\u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}\u{2028}\u{2029}\u{2027}é😀\u{85}"
            odd.sessionId = weird; odd.method = weird; odd.url = weird; odd.label = weird; odd.seq = -12; odd.statusCode = 7
            odd.durationMs = 0.0005; odd.offsetMs = -3.25; odd.totalMs = 1e12
            var t = WaterfallTransaction(index: 0, times: TransactionTimes(), reusedConnection: nil)
            t.anomalies = [weird, ""]
            t.url = weird
            odd.transactions = [t]
            var fast = ""
            WaterfallRender.writeRequest(odd, into: &fast, pretty: pretty, indent: 0)
            var tree = ""
            WaterfallRender.requestJSON(odd).write(into: &tree, pretty: pretty, indent: 0)
            #expect(fast == tree)
            // Streamed through a sink in pieces, the document is the same bytes.
            var pieces: [String] = []
            let sink = OutputSink.memory { pieces.append($0) }
            var w = JSONWriter(pretty: pretty, sink: sink)
            WaterfallRender.json(r, into: &w)
            w.newline()
            w.flush()
            #expect(pieces.joined() == WaterfallRender.json(r, pretty: pretty))
            // The summary, written one session at a time, is the tree's bytes.
            var summaryTree = ""
            WaterfallRender.summaryJSON(r.summary).write(into: &summaryTree, pretty: pretty, indent: 0)
            var sw = JSONWriter(pretty: pretty)
            WaterfallRender.writeSummary(r.summary, into: &sw)
            #expect(sw.text == summaryTree)
        }
    }
}

@Suite struct MillisecondFormatTests {
    /// The byte writer's millisecond numbers are what JSONOut.format prints, over a wide range.
    @Test func fastMillisecondsMatchJSONOut() throws {
        var values: [Double] = [
            0, -0.0, 0.001, 0.0004, 0.0005, -0.0004, 0.1, 0.123, 1, 10, 100.5, 221, 999.999, 1000, 1234.5678,
            -3.25, 86_400_000, 7_999_999_999.999, 8_000_000_000, 1e12, 1e16, 123_456_789.012, 0.010, 0.020
        ]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let k = Int64.random(in: -9_000_000_000_000...9_000_000_000_000, using: &rng)
            values.append(Double(k) / 1000)
            values.append(Double(Int64.random(in: -100_000...100_000, using: &rng)) / 1000)
        }
        for v in values {
            var r = WaterfallRequest(input: "i", file: "f", line: 1)
            r.durationMs = v
            var fast = ""
            WaterfallRender.writeRequest(r, into: &fast, pretty: false, indent: 0)
            var tree = ""
            WaterfallRender.requestJSON(r).write(into: &tree, pretty: false, indent: 0)
            #expect(fast == tree, "\(v)")
            if fast != tree { break }
        }
    }
}
