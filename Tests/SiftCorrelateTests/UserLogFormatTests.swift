import Foundation
import SiftCore
import Testing

@testable import SiftCorrelate

/// A team's own log formats in lnav's format-file form: read, their parts found by name, bad
/// definitions named.
@Suite struct UserLogFormatTests {
    static let id = "req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b"
    static let file = #"""
        {"$schema": "https://lnav.org/schemas/format-v1.schema.json",
         "acme_gateway": {
           "title": "ACME gateway",
           "regex": {"std": {"pattern": "^(?<timestamp>\\d{2}\\.\\d{2}\\.\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d{3}) \\| (?<level>\\w+) \\| rid=(?<request_id>\\S+) \\| (?<method>[A-Z]+) (?<path>\\S+) -> (?<sc_status>\\d{3}) \\((?<took_us>\\d+)\\)(?<body>.*)$"}},
           "timestamp-format": ["%d.%m.%Y %H:%M:%S.%L"],
           "level-field": "level", "opid-field": "request_id"},
         "acme_json": {"json": true, "timestamp-field": "when", "pbsift-duration-unit": "s"}}
        """#

    static func formats() throws -> [UserLogFormat] { try UserLogFormat.load(try JSONDocument(string: file).root) }

    @Test func aRegexFormatReadsEachPartByName() throws {
        let options = LogReadOptions(userFormats: try Self.formats())
        let p = LineParser.parse(
            "29.11.2026 10:15:04.790 | WARN | rid=\(Self.id) | POST /v1/auth/token -> 503 (38211) upstream", options: options)
        #expect(p.format.rawValue == "acme_gateway")
        #expect(p.ts.map { abs($0 - 1_795_947_304.79) < 1e-3 } == true)
        #expect(p.status == 503)
        #expect(p.durationMs == 38.211)
        #expect(p.method == "POST" && p.path == "/v1/auth/token")
        #expect(p.level == "warn")
        #expect(p.fieldIDs.map(\.description) == [Self.id])
        // A line of another shape falls through to the catalogue.
        let other = LineParser.parse(#"{"ts":"2026-11-29T10:15:04Z","request_id":"\#(Self.id)","status":200,"msg":"x"}"#, options: options)
        #expect(other.format == .platform)
    }

    @Test func aJSONFormatReadsItsTimestampField() throws {
        let options = LogReadOptions(userFormats: try Self.formats())
        let p = LineParser.parse(#"{"when":"2026-11-29T10:15:04.790Z","rid":"\#(Self.id)","status":200,"latency":0.038}"#, options: options)
        #expect(p.format.rawValue == "acme_json")
        #expect(p.status == 200 && p.durationMs.map { abs($0 - 38) < 1e-9 } == true)
        #expect(p.ts.map { abs($0 - 1_795_947_304.79) < 1e-3 } == true)
    }

    @Test(arguments: [
        (#"{"x": {"regex": {"a": {"pattern": "(?<ts>[unclosed"}}}}"#, "does not compile"),
        (#"{"x": {"regex": {"a": {"pattern": "^no captures$"}}}}"#, "names no capture"),
        (#"{"x": {"title": "nothing"}}"#, "needs 'regex'"),
        (#"{"x": {"json": true}}"#, "timestamp-field"),
        (#"{"nginx-json": {"regex": {"a": {"pattern": "(?<ts>x)"}}}}"#, "built-in"),
        (#"{"x": {"regex": {"a": {"pattern": "(?<ts>x)"}}, "pbsift-duration-unit": "fortnights"}}"#, "pbsift-duration-unit"),
        (#"[]"#, "top level"),
        (#"{}"#, "no format")
    ])
    func badDefinitionsAreNamed(_ text: String, _ why: String) throws {
        #expect(throws: UserLogFormat.DefinitionError.self) { try UserLogFormat.load(try JSONDocument(string: text).root) }
        do { _ = try UserLogFormat.load(try JSONDocument(string: text).root) } catch let e as UserLogFormat.DefinitionError {
            #expect(e.description.contains(why), "\(e)")
        }
    }

    @Test(arguments: [
        ("29.11.2026 10:15:04.790", "%d.%m.%Y %H:%M:%S.%L", 1_795_947_304.79, false),
        ("2026-11-29T10:15:04+0100", "%Y-%m-%dT%H:%M:%S%z", 1_795_943_704, true),
        ("Sun, 29 Nov 2026 10:15:04 GMT", "%a, %d %b %Y %H:%M:%S %Z", 1_795_947_304, true),
        ("11/29/26 10:15:04 AM", "%m/%d/%y %I:%M:%S %p", 1_795_947_304, false),
        ("1795947304.5", "%s.%f", 1_795_947_304.5, true)
    ])
    func strftimeLayouts(_ s: String, _ f: String, _ t: Double, _ zoned: Bool) throws {
        let r = try #require(Strftime.parse(s, format: f), "\(s)")
        #expect(abs(r.0 - t) < 1e-3, "\(s): \(r.0)")
        #expect(r.1 == zoned)
    }

    @Test func strftimeRejectsWhatDoesNotFit() {
        for (s, f) in [
            ("29.11.2026", "%d.%m.%Y %H"), ("99.99.2026 10:15:04", "%d.%m.%Y %H:%M:%S"), ("x", "%Y"), ("2026-11-29 trailing", "%Y-%m-%d")
        ] {
            #expect(Strftime.parse(s, format: f) == nil, "\(s)")
        }
    }
}
