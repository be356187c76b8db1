import Foundation
import Testing
@testable import SiftCLI
import SiftCore

/// `pbsift har`: spec-exact HAR 1.2 out, read back as the same records.
@Suite struct HAROutputTests {
    static let example = packageRoot.appendingPathComponent("Tests/SiftCoreTests/Fixtures/PalbeConsole").path
    static let incident = packageRoot.appendingPathComponent("samples/export-incident.zip").path

    func har(_ input: String) throws -> (path: String, doc: JSONValue) {
        let out = try makeTempDir().appendingPathComponent("out.har").path
        let r = runCLI(["har", input, "-o", out])
        #expect(r.status == 0 || r.status == 1, "\(r.err)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        return (out, try JSONDocument(string: text).root)
    }

    /// Drops the fields that name where a request was read (the input and file differ by design).
    func withoutPlaces(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.contains("\"input\"") && !$0.contains("\"file\"") }.joined(separator: "\n")
    }

    /// export → HAR → pbsift: the same waterfall, in text and in JSON.
    @Test func roundTripGivesTheSameWaterfall() throws {
        let (path, _) = try har(Self.example)
        for format in ["text", "json", "csv"] {
            let a = runCLI(["waterfall", "-f", format, Self.example])
            let b = runCLI(["waterfall", "-f", format, path])
            #expect(a.status == b.status, "\(format)")
            #expect(withoutPlaces(a.out) == withoutPlaces(b.out), "\(format)")
        }
    }

    /// A request that timed out after 30 s has `time` 30 000 ms, the silence in `wait`: DevTools and
    /// pbsift read the same 30 s back, not the milliseconds before the silence.
    @Test func aTimeoutKeepsItsWholeTime() throws {
        let (path, doc) = try har(Self.incident)
        let entries = doc["log", "entries"]?.elements ?? []
        let timeout = try #require(entries.first { $0["response", "status"]?.int == 0 && ($0["time"]?.double ?? 0) > 1000 })
        #expect(timeout["time"]?.double == 30_000)
        let timings = ["blocked", "dns", "connect", "send", "wait", "receive"].compactMap { timeout["timings", $0]?.double }.filter {
            $0 > 0
        }
        #expect(abs(timings.reduce(0, +) - 30_000) < 0.01, "\(timings)")
        #expect(runCLI(["waterfall", path]).out.contains("30.0 s"))
    }

    /// `--json`, which every command's help offers, gives the HAR (HAR is JSON); `--format json` does not exist here.
    @Test func jsonFlagGivesTheHAR() throws {
        let a = runCLI(["har", "--json", Self.example]), b = runCLI(["har", Self.example])
        #expect(a.status == b.status && a.out == b.out && a.out.hasPrefix("{"), "\(a.err)")
        #expect(runCLI(["har", "--json", "--format", "har", Self.example]).out == b.out)
    }

    /// The round trip keeps sessions, request ids and correlation the same too.
    @Test func roundTripKeepsSessionsAndIds() throws {
        let (path, _) = try har(Self.example)
        let a = try JSONDocument(string: runCLI(["inspect", "--json", Self.example]).out).root
        let b = try JSONDocument(string: runCLI(["inspect", "--json", path]).out).root
        #expect(a["sessions"]?.elements.first?["sessionId"]?.string == b["sessions"]?.elements.first?["sessionId"]?.string)
        #expect(b["sessions"]?.elements.first?["app", "bundleId"]?.string == "com.acme.shop")
        let ra = runCLI(["records", "--type", "network", Self.example]).out.split(separator: "\n").count
        let rb = runCLI(["records", "--type", "network", path]).out.split(separator: "\n").count
        #expect(ra == rb)
    }

    /// HAR 1.2's required fields and rules hold for every entry.
    @Test func specExact() throws {
        let (_, doc) = try har(Self.incident)
        let log = try #require(doc["log"])
        #expect(log["version"]?.string == "1.2")
        #expect(log["creator", "name"]?.string == "pbsift" && log["creator", "version"]?.string != nil)
        #expect(log["pages"]?.isArray == true)
        let entries = try #require(log["entries"]?.elements)
        #expect(entries.count > 10)
        for e in entries {
            #expect(e["startedDateTime"].flatMap { $0.string }.flatMap(Timestamp.parse) != nil)
            let t = try #require(e["timings"])
            var sum = 0.0
            for k in ["blocked", "dns", "connect", "send", "wait", "receive"] {
                let v = try #require(t[k]?.double, "\(k)")
                if ["send", "wait", "receive"].contains(k) { #expect(v >= 0, "\(k) is required, never -1") }
                #expect(v == -1 || v >= 0)
                if v > 0 { sum += v }
            }
            if let ssl = t["ssl"]?.double, ssl >= 0 {
                #expect(ssl <= (t["connect"]?.double ?? -1), "ssl is inside connect")
            }
            let time = try #require(e["time"]?.double)
            #expect(abs(time - sum) < 0.01, "time is the sum of the timings without ssl")
            for (side, fields) in [
                ("request", ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"]),
                (
                    "response",
                    ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"]
                )
            ] {
                for f in fields { #expect(e[side]?[f] != nil, "\(side).\(f)") }
            }
            #expect(e["response", "content", "size"]?.int != nil && e["response", "content", "mimeType"]?.string != nil)
            #expect(e["cache"]?.isObject == true)
            e.forEachMember { k, _ in
                let standard = [
                    "startedDateTime", "time", "request", "response", "cache", "timings", "serverIPAddress",
                    "connection", "pageref", "comment"
                ]
                #expect(standard.contains(k) || k.hasPrefix("_"), "\(k) is not a HAR field and has no _")
            }
        }
    }

    /// A redirect stays an entry of its own; both carry the record's id.
    @Test func redirectsAreEntries() throws {
        let (_, doc) = try har(Self.example)
        let entries = doc["log", "entries"]?.elements ?? []
        let ids = entries.compactMap { $0["_recordId"]?.string }
        let repeated = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }
        #expect(!repeated.isEmpty)
        let first = try #require(entries.first { $0["response", "redirectURL"]?.string?.isEmpty == false })
        #expect((300..<400).contains(first["response", "status"]?.int ?? 0))
    }

    /// Every credential verify finds is masked in the HAR.
    @Test func credentialsAreMasked() throws {
        let t = HARFixture.token, pw = HARFixture.password
        let net =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","source":"sdk","kind":"http","category":"call","label":"x","method":"POST","url":"https://api.example.test/v1/me?access_token=\#(pw)","state":"success","statusCode":200,"duration":0.1,"request":{"headers":[{"name":"Authorization","value":"Bearer \#(t)"}],"body":{"size":20,"contentType":"application/json","encoding":"utf8","text":"{\"password\":\"\#(pw)\"}"}}}"#
        let session = try Fixture.write([Fixture.header(), net])
        let (path, doc) = try har(session)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains(t) && !text.contains(pw))
        #expect(doc["log", "entries"]?.count == 1)
    }
}
