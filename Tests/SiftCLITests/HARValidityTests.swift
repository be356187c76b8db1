import Foundation
import Testing
@testable import SiftCLI
import SiftCore

/// Every HAR `pbsift har` writes passes the strict HAR 1.2 validator (`HARValidator`): the samples,
/// the damaged samples, the leak matrix's export, a session with clock errors and hostile numbers,
/// and HAR captures of each tool read back and written again.
@Suite struct HARValidityTests {
    static let samples = packageRoot.appendingPathComponent("samples")

    /// The inputs, by name: paths under the package, or built at test time.
    static let inputs: [String] = {
        var out = [
            "Tests/SiftCoreTests/Fixtures/PalbeConsole", "samples/export-incident.zip", "samples/export-incident.tar.gz",
            "samples/export-clean", "samples/debug-tail.jsonl"
        ]
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: samples.path)) ?? [] where name.hasPrefix("ses_") {
            out.append("samples/" + name)
        }
        for name in (try? fm.contentsOfDirectory(atPath: samples.appendingPathComponent("damaged").path)) ?? []
        where !name.hasSuffix(".json") {
            out.append("samples/damaged/" + name)
        }
        return out.sorted() + ["@leak-matrix", "@hostile", "@chrome", "@chromium", "@firefox", "@safari", "@charles", "@mitmproxy"]
    }()

    static func path(_ name: String) throws -> String {
        switch name {
        case "@leak-matrix": return try #require(LeakMatrixTests.fixture).export.path
        case "@hostile": return try Fixture.write([Fixture.header()] + hostile)
        case "@chrome": return try HARFixture.write(HARFixture.chrome)
        case "@chromium": return try HARFixture.write(HARFixture.chromium())
        case "@firefox": return try HARFixture.write(HARFixture.firefox)
        case "@safari": return try HARFixture.write(HARFixture.safari)
        case "@charles": return try HARFixture.write(HARFixture.charles)
        case "@mitmproxy": return try HARFixture.write(HARFixture.mitmproxy)
        default: return packageRoot.appendingPathComponent(name).path
        }
    }

    /// Network records a writer with a bad clock or a hostile one leaves: TLS outside connect, ends
    /// before starts, negative sizes and status, a retry (not a redirect) and a final redirect.
    static let hostile: [String] = [
        #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.300Z","id":"rec_1","method":"GET","url":"https://api.example.test/a","state":"success","statusCode":200,"duration":0.3,"response":{"headers":[],"body":{"size":-7,"contentType":"text/plain","encoding":"utf8","text":"ok"}},"metrics":{"taskStart":"2026-11-29T10:15:02.000Z","taskEnd":"2026-11-29T10:15:02.300Z","redirectCount":0,"transactions":[{"fetchStart":"2026-11-29T10:15:02.000Z","connectStart":"2026-11-29T10:15:02.010Z","secureConnectionStart":"2026-11-29T10:15:02.005Z","secureConnectionEnd":"2026-11-29T10:15:02.090Z","connectEnd":"2026-11-29T10:15:02.050Z","requestStart":"2026-11-29T10:15:02.100Z","requestEnd":"2026-11-29T10:15:02.090Z","responseStart":"2026-11-29T10:15:02.200Z","responseEnd":"2026-11-29T10:15:02.300Z","statusCode":-3,"requestHeaderBytes":-5,"responseBodyBytes":-9}]}}"#,
        #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:03.300Z","id":"rec_2","method":"GET","url":"https://api.example.test/b","state":"success","statusCode":200,"duration":0.3,"metrics":{"transactions":[{"fetchStart":"2026-11-29T10:15:03.000Z","secureConnectionStart":"2026-11-29T10:15:03.001Z","secureConnectionEnd":"2026-11-29T10:15:03.020Z","requestStart":"2026-11-29T10:15:03.030Z","responseEnd":"2026-11-29T10:15:03.100Z","statusCode":503,"url":"https://api.example.test/b"},{"fetchStart":"2026-11-29T10:15:03.200Z","responseEnd":"2026-11-29T10:15:03.300Z","statusCode":200,"url":"https://api.example.test/b"}]}}"#,
        #"{"type":"network","seq":3,"ts":"2026-11-29T10:15:04.000Z","id":"rec_3","method":"GET","url":"https://api.example.test/c","state":"success","statusCode":302,"duration":0.1,"response":{"headers":[{"name":"Location","value":"https://api.example.test/d"}],"body":{"size":0}}}"#,
        #"{"type":"network","seq":4,"ts":"2026-11-29T10:15:05.000Z","id":"rec_4","method":"POST","url":"https://api.example.test/e","state":"failure","duration":0.1,"error":{"domain":"NSURLErrorDomain","code":-1001,"description":"The request timed out."},"request":{"headers":[{"name":"Cookie","value":"a=1; b"}],"body":{"size":3,"contentType":"application/x-www-form-urlencoded","encoding":"utf8","text":"a=1"}}}"#
    ]

    @Test(arguments: inputs) func everyHARPbsiftWritesIsValid(_ name: String) throws {
        let input = try Self.path(name)
        let out = try makeTempDir().appendingPathComponent("out.har").path
        let r = runCLI(["har", input, "-o", out])
        #expect(r.status != 64, "\(name): \(r.err)")
        let doc = try JSONDocument(string: try String(contentsOfFile: out, encoding: .utf8)).root
        let errors = HARValidator.validate(doc)
        #expect(errors.isEmpty, "\(name):\n\(errors.prefix(20).joined(separator: "\n"))")
        // Read back by pbsift: the same number of network records.
        let a = runCLI(["records", "--type", "network", "--json", input]).out.split(separator: "\n").count
        let b = runCLI(["records", "--type", "network", "--json", out]).out.split(separator: "\n").count
        #expect(a == b, "\(name)")
    }

    /// The validator is not vacuous: each rule it checks fails on a HAR that breaks it.
    @Test func validatorRejectsBrokenHARs() throws {
        func entry(_ edit: (inout [String: Any]) -> Void) -> [String] {
            var e = HARFixture.entry(url: "https://a.example/x")
            edit(&e)
            let doc = HARFixture.document(creator: "t", entries: [e])
            guard let data = try? HARFixture.data(doc), let parsed = try? JSONDocument(bytes: Array(data)) else { return ["unreadable"] }
            return HARValidator.validate(parsed.root)
        }
        #expect(entry { _ in }.isEmpty)
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            (
                "ssl",
                { e in
                    e["timings"] = ["blocked": 0, "dns": 0, "connect": 10, "ssl": 20, "send": 0, "wait": 0, "receive": 0]; e["time"] = 10
                }
            ),
            (
                "ssl",
                { e in
                    e["timings"] = ["connect": -1, "ssl": 5, "send": 0, "wait": 0, "receive": 0]; e["time"] = 0
                }
            ),
            (
                "send",
                { e in
                    e["timings"] = ["send": -1, "wait": 0, "receive": 0]; e["time"] = 0
                }
            ),
            (
                "blocked",
                { e in
                    e["timings"] = ["blocked": -2, "send": 0, "wait": 0, "receive": 0]; e["time"] = 0
                }
            ),
            ("add up", { e in e["time"] = 12345 }),
            ("startedDateTime", { e in e["startedDateTime"] = "29/11/2026" }),
            ("cache", { e in e["cache"] = nil }),
            ("notAField", { e in e["notAField"] = 1 }),
            (
                "redirectURL",
                { e in
                    var r = (e["response"] as? [String: Any]) ?? [:]
                    r["redirectURL"] = "https://b.example/"
                    e["response"] = r
                }
            ),
            (
                "postData",
                { e in
                    var r = (e["request"] as? [String: Any]) ?? [:]
                    r["postData"] = ["mimeType": "x", "text": "a=1", "params": [["name": "a", "value": "1"]]]
                    e["request"] = r
                }
            ),
            (
                "bodySize",
                { e in
                    var r = (e["request"] as? [String: Any]) ?? [:]
                    r["bodySize"] = -5
                    e["request"] = r
                }
            ),
            (
                "content.size",
                { e in
                    var r = (e["response"] as? [String: Any]) ?? [:]
                    r["content"] = ["size": -1, "mimeType": "x"]
                    e["response"] = r
                }
            ),
            (
                "status",
                { e in
                    var r = (e["response"] as? [String: Any]) ?? [:]
                    r["status"] = "200"
                    e["response"] = r
                }
            )
        ]
        for (what, edit) in cases {
            let errors = entry(edit)
            #expect(errors.contains { $0.contains(what) }, "\(what): \(errors)")
        }
    }
}
