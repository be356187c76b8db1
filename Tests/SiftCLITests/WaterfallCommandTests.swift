import Foundation
import SiftCore
import Testing
@testable import SiftCLI

@Suite struct WaterfallCommandTests {
    static let tx =
        #"{"fetchStart":"2026-11-29T10:15:01.880Z","domainLookupStart":"2026-11-29T10:15:01.882Z","domainLookupEnd":"2026-11-29T10:15:01.900Z","connectStart":"2026-11-29T10:15:01.900Z","secureConnectionStart":"2026-11-29T10:15:01.931Z","secureConnectionEnd":"2026-11-29T10:15:01.973Z","connectEnd":"2026-11-29T10:15:01.973Z","requestStart":"2026-11-29T10:15:01.973Z","requestEnd":"2026-11-29T10:15:01.976Z","responseStart":"2026-11-29T10:15:01.997Z","responseEnd":"2026-11-29T10:15:02.000Z","reusedConnection":false,"networkProtocol":"h2","statusCode":200}"#
    static let timed =
        #"{"type":"network","seq":3,"ts":"2026-11-29T10:15:02.001Z","id":"rec_0004","source":"app","kind":"http","category":"app","label":"feed","method":"GET","url":"https://cdn.example.test/v1/feed/ord_77?token=abc","state":"success","statusCode":200,"duration":0.120,"requestId":"req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b","metrics":{"taskStart":"2026-11-29T10:15:01.880Z","taskEnd":"2026-11-29T10:15:02.000Z","transactions":["#
        + tx + #"]}}"#

    static func export() throws -> String {
        // The fixture's network record has no metrics: a missing-metrics finding (info).
        try Fixture.write(Fixture.clean + [timed])
    }

    @Test(arguments: ["text", "json", "csv", "markdown", "svg"])
    func everyFormat(_ format: String) throws {
        let r = runCLI(["waterfall", "-f", format, try Self.export()])
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.out.isEmpty)
        #expect(!r.out.contains("token=abc"))
        switch format {
        case "json":
            let doc = try JSONDocument(string: r.out)
            let reqs = try #require(doc.root["requests"]?.elements)
            #expect(reqs.count == 2)
            let phases = try #require(reqs[1]["transactions"]?.elements.first?["phases"])
            #expect(phases["tls"]?.double == 42)
            #expect(phases["dns"]?.double == 18)
            #expect(reqs[1]["offsetMs"]?.double == 878)
            #expect(doc.root["findings"]?.elements.first?["rule"]?.string == "waterfall.missing-metrics")
        case "svg":
            #expect(r.out.hasPrefix("<?xml"))
            #expect(r.out.hasSuffix("</svg>\n"))
        case "csv":
            #expect(r.out.hasPrefix("sessionId,seq,"))
        default:
            #expect(r.out.contains("feed/ord_77") || r.out.contains("feed/:id") || r.out.contains("cdn.example.test"))
        }
    }

    @Test func filters() throws {
        let path = try Self.export()
        var r = runCLI(["waterfall", "--json", "--request", "rec_0004", path])
        #expect(try JSONDocument(string: r.out).root["requests"]?.count == 1)
        r = runCLI(["waterfall", "--json", "--request", "1", path])
        #expect(try JSONDocument(string: r.out).root["requests"]?.elements.first?["seq"]?.int == 1)
        r = runCLI(["waterfall", "--json", "--source", "app", path])
        #expect(try JSONDocument(string: r.out).root["requests"]?.count == 1)
        r = runCLI(["waterfall", "--json", "--category", "call", path])
        #expect(try JSONDocument(string: r.out).root["requests"]?.elements.first?["seq"]?.int == 1)
        r = runCLI(["waterfall", "--json", "--min-duration", "121", path])
        #expect(try JSONDocument(string: r.out).root["requests"]?.count == 0)
        r = runCLI(["waterfall", "--json", "--slowest", "1", path])
        #expect(try JSONDocument(string: r.out).root["requests"]?.count == 1)
    }

    @Test func failOnAndNoColorByDefault() throws {
        let path = try Self.export()
        #expect(runCLI(["waterfall", "--fail-on", "info", path]).status == 1)
        #expect(runCLI(["waterfall", "--fail-on", "info", "--request", "rec_0004", path]).status == 0)
        let plain = runCLI(["waterfall", path], stdoutTTY: false)
        #expect(!plain.out.contains("\u{1B}["))
        let tty = runCLI(["waterfall", path], stdoutTTY: true)
        #expect(tty.out.contains("\u{1B}["))
        let noColor = runCLI(["waterfall", path], env: ["NO_COLOR": "1"], stdoutTTY: true)
        #expect(!noColor.out.contains("\u{1B}["))
    }

    @Test func outputFile() throws {
        let dir = try makeTempDir()
        let target = dir.appendingPathComponent("w.svg").path
        let r = runCLI(["waterfall", "-f", "svg", "-o", target, try Self.export()])
        #expect(r.status == 0 && r.out.isEmpty)
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("<?xml"))
    }

    @Test(arguments: [
        ["--slowest", "0"], ["--slowest", "ten"], ["--min-duration", "-5"], ["--source", "both"],
        ["-f", "png"]
    ])
    func badValuesAreUsageErrors(_ extra: [String]) throws {
        let r = runCLI(["waterfall"] + extra + [try Self.export()])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("pbsift: "))
    }
}

@Suite struct WaterfallExitTests {
    /// What is listed decides the exit status: the reader's findings are `inspect`'s, in every
    /// format (SARIF and JUnit included), and do not fail `waterfall`.
    @Test func whatIsListedDecidesTheExitStatus() throws {
        let path = try Fixture.write(Fixture.withFrame) // policy.frame-in-export: high
        let r = runCLI(["waterfall", path])
        #expect(r.status == 0)
        #expect(r.err.contains("note: the reader made 1 other finding"))
        #expect(!r.out.contains("policy.frame-in-export"))
        #expect(runCLI(["waterfall", "-q", path]).err.isEmpty)
        for format in ["sarif", "junit", "json"] {
            let f = runCLI(["waterfall", "-f", format, "--fail-on", "info", path])
            #expect(!f.out.contains("policy.frame-in-export"), "\(format)")
            #expect(f.status == (f.out.contains("waterfall.") ? 1 : 0), "\(format)")
        }
        #expect(runCLI(["inspect", path]).status == 1)
    }
}
