import Foundation
import SiftCore
import Testing

/// A HAR written on one line (as `jq -c`, many HAR APIs and proxies write it) holds every entry on
/// line 1: each request is still itself in `show`, `report` and `waterfall`, as in the same HAR
/// pretty-printed.
@Suite struct OneLineHARTests {
    static func doc() -> HARFixture.Obj {
        let entries = (1...3).map { k in
            HARFixture.entry(
                url: "https://api.example.test/v1/item/\(k)", started: "2026-11-29T10:15:0\(k).000Z", status: k == 2 ? 503 : 200,
                timings: ["blocked": 1, "dns": -1, "connect": -1, "send": 1, "wait": Double(100 * k), "receive": 2])
        }
        return HARFixture.document(creator: "WebInspector", entries: entries)
    }

    @Test(arguments: [false, true])
    func showFindsEachRequest(_ pretty: Bool) throws {
        let path = try HARFixture.write(Self.doc(), pretty: pretty)
        for k in 1...3 {
            let r = runCLI(["show", "--json", path, "\(k)"])
            #expect(r.status == 0, "\(r.err)")
            let doc = try JSONDocument(string: r.out).root
            #expect(doc["url"]?.string == "https://api.example.test/v1/item/\(k)", "pretty \(pretty), seq \(k)")
            #expect(doc["statusCode"]?.int == (k == 2 ? 503 : 200))
        }
    }

    @Test func reportSeesEachFailureOnce() throws {
        let path = try HARFixture.write(Self.doc(), pretty: false)
        let r = runCLI(["report", "--json", path])
        let doc = try JSONDocument(string: r.out).root
        let failures = doc["failures"]?.elements ?? []
        #expect(failures.count == 1, "\(r.out.prefix(400))")
    }
}

/// What `har` and `records` write reads back through `verify` as the SDK's own exports do: every
/// mask is `***`, so the credentials the incident sample leaks are neither printed nor flagged again.
@Suite struct OutputsPassVerifyTests {
    @Test(arguments: [["har"], ["records"], ["records", "--format", "jsonl"]])
    func writtenCopyPassesVerify(_ command: [String]) throws {
        let zip = packageRoot.appendingPathComponent("samples/export-incident.zip").path
        #expect(runCLI(["verify", "-q", zip]).status == 1)
        let out = try makeTempDir().appendingPathComponent(command == ["har"] ? "copy.har" : "copy.jsonl").path
        let w = runCLI(command + [zip, "-o", out])
        #expect(w.status == 0, "\(w.err)")
        let v = runCLI(["verify", "--fail-on", "low", out])
        #expect(v.status == 0, "\(command): \(v.out)")
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(text.contains("***") && !text.contains("chars)"), "\(command)")
    }
}

/// A HAR names no user: its sessions' user is unknown, never "signed out".
@Suite struct HARUserTests {
    @Test func theUserOfAHARIsUnknown() throws {
        let path = try HARFixture.write(OneLineHARTests.doc())
        for command in ["inspect", "report"] {
            let r = runCLI([command, path])
            #expect(r.out.contains("(unknown: a HAR names no user)") && !r.out.contains("signed out"), "\(command): \(r.out)")
        }
        #expect(runCLI(["show", path, "1"]).out.contains("user unknown"))
    }
}
