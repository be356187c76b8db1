import Foundation
import SiftTestSupport
import Testing
@testable import SiftCore
import SiftArchive

/// Builds small exports in a temporary folder.
struct TempExport {
    let dir: URL
    init() throws {
        dir = Scratch.directory("core")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sessions"), withIntermediateDirectories: true)
    }
    static let sessionId = "ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13"
    static let header =
        #"{"type":"session","seq":0,"ts":"2026-11-29T10:15:01.004Z","formatVersion":1,"sessionId":"ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13","launchedAt":"2026-11-29T10:15:01.002Z","app":{"bundleId":"com.acme.shop","version":"4.2.0","build":"512"},"sdk":{"name":"palbe-swift","version":"3.1.0"},"device":{"model":"iPhone16,1","system":"iOS 18.1.1","locale":"en_GB","timeZone":"Europe/London"},"environmentRef":"env_prod_eu","userId":"usr_123"}"#
    static func log(_ seq: Int) -> String {
        #"{"type":"log","seq":\#(seq),"ts":"2026-11-29T10:15:0\#(seq % 10).000Z","level":"info","label":"x","message":"m\#(seq)"}"#
    }
    func writeSession(_ content: String) throws -> String {
        let p = dir.appendingPathComponent("sessions/\(TempExport.sessionId).jsonl")
        try Data(content.utf8).write(to: p)
        return p.path
    }
    func writeBlob(_ bytes: [UInt8], name: String? = nil) throws -> String {
        let hex = name ?? SHA256.hexDigest(bytes)
        let d = dir.appendingPathComponent("blobs/\(hex.prefix(2))")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try Data(bytes).write(to: d.appendingPathComponent(hex))
        return hex
    }
    func cleanup() { try? FileManager.default.removeItem(at: dir) }
}

@Suite struct ReaderTests {
    func rules(_ o: ReadOutcome) -> [String] { o.findings.map(\.rule) }

    @Test func readsTheSpecExampleCleanly() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/PalbeConsole").path
        try #require(FileManager.default.fileExists(atPath: example))
        let o = ExportReader().read(inputs: [example], analyses: [])
        #expect(o.findings.isEmpty, "\(o.findings)")
        #expect(o.sessions.count == 1)
        let s = try #require(o.sessions.first)
        #expect(s.sessionId == "ses_4ba71ab7-ac05-44a5-acc6-be1805fdf179")
        #expect(s.recordCount == 12)
        #expect(s.records["network"] == 6)
        #expect(s.records["log"] == 2)
        #expect(s.records["event"] == 4)
        #expect(s.records["log"]! + s.records["network"]! + s.records["event"]! == 12)
        #expect(o.blobs[example]?.count == 1)
        #expect(o.inputs.first?.status == .ok)
    }

    @Test func everyLineIsAccountedFor() throws {
        let t = try TempExport()
        defer { t.cleanup() }
        let lines = [
            TempExport.header, TempExport.log(1), "{not json", TempExport.log(3),
            #"{"type":"metric","seq":4,"ts":"2026-11-29T10:15:04.000Z"}"#,
            #"{"type":"frame","seq":5,"ts":"2026-11-29T10:15:05.000Z","direction":"out","body":{}}"#,
            TempExport.log(7), TempExport.log(7), "[1,2]", #"{"type":"log","seq":9,"ts":"2026-11-29T10:15:0"#
        ]
        _ = try t.writeSession(lines.joined(separator: "\n"))
        let o = ExportReader().read(inputs: [t.dir.path], analyses: [])
        let r = rules(o)
        #expect(r.contains("integrity.malformed-line"))
        #expect(r.contains("integrity.unknown-record-type"))
        #expect(r.contains("policy.frame-in-export"))
        #expect(r.contains("integrity.seq-gap")) // 6 missing
        #expect(r.contains("integrity.seq-duplicate")) // 7 twice
        #expect(r.contains("integrity.torn-line"))
        let s = try #require(o.sessions.first)
        #expect(s.recordCount == 6) // log1, log3, metric, frame, log7, log7
        #expect(s.damagedLines == 3)
        #expect(s.records["unknown"] == 1)
        // The malformed line 3 explains the missing seq 2: no gap reported there.
        #expect(!o.findings.contains { $0.rule == "integrity.seq-gap" && $0.seq == 3 })
        #expect(o.findings.first { $0.rule == "integrity.torn-line" }?.line == 10)
    }

    @Test func blobsAreChecked() throws {
        let t = try TempExport()
        defer { t.cleanup() }
        let good = try t.writeBlob(Array(repeating: UInt8(ascii: "a"), count: 40_000))
        let missing = String(repeating: "ab", count: 32)
        _ = try t.writeBlob(Array("tampered".utf8), name: String(repeating: "cd", count: 32))
        _ = try t.writeBlob(Array("orphan".utf8))
        func net(_ seq: Int, _ hex: String, size: Int) -> String {
            #"{"type":"network","seq":\#(seq),"ts":"2026-11-29T10:15:02.000Z","id":"rec_\#(seq)","kind":"http","method":"GET","url":"https://x.example/","state":"success","response":{"headers":[],"body":{"size":\#(size),"contentType":"application/json","blob":"sha256:\#(hex)","storedSize":\#(size)}}}"#
        }
        _ = try t.writeSession(
            [
                TempExport.header, net(1, good, size: 40_000), net(2, good, size: 40_000), net(3, missing, size: 50_000),
                net(4, String(repeating: "cd", count: 32), size: 8),
                #"{"type":"network","seq":5,"ts":"2026-11-29T10:15:02.000Z","id":"rec_5","request":{"headers":[],"body":{"size":3,"encoding":"utf8","text":"abcd"}}}"#
            ].joined(separator: "\n") + "\n")
        let o = ExportReader().read(inputs: [t.dir.path], analyses: [])
        let r = rules(o)
        #expect(r.filter { $0 == "integrity.blob-missing" }.count == 1)
        #expect(r.filter { $0 == "integrity.blob-hash-mismatch" }.count == 1)
        #expect(r.filter { $0 == "integrity.blob-orphan" }.count == 1)
        #expect(r.filter { $0 == "integrity.body-size-mismatch" }.count == 1)
        let b = try #require(o.blobs[t.dir.path])
        #expect(b.count == 3)
        #expect(b.savedBytes >= 40_000)
    }

    @Test func overlongLinesAndDeepNestingAreBounded() throws {
        let t = try TempExport()
        defer { t.cleanup() }
        var limits = ReadLimits.default
        limits.maxLineBytes = 1 << 20
        let huge = #"{"type":"log","seq":2,"message":""# + String(repeating: "x", count: 3 << 20) + "\"}"
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        _ = try t.writeSession([TempExport.header, TempExport.log(1), huge, deep, TempExport.log(4)].joined(separator: "\n") + "\n")
        let o = ExportReader(limits: limits).read(inputs: [t.dir.path], analyses: [])
        #expect(o.inputs.first?.status == .partial)
        #expect(o.sessions.first?.recordCount == 2)
        #expect(!o.findings.contains { $0.rule == "integrity.seq-gap" })
    }

    @Test func stdinStyleRecordsWithoutHeader() throws {
        let t = try TempExport()
        defer { t.cleanup() }
        let p = t.dir.appendingPathComponent("tail.jsonl")
        try Data([TempExport.log(1), TempExport.log(2)].joined(separator: "\n").utf8).write(to: p)
        let o = ExportReader().read(inputs: [p.path], analyses: [])
        #expect(o.sessions.first?.recordCount == 2)
        #expect(o.findings.isEmpty) // a `debug tail --json` capture has no header by design
        let named = try t.writeSession([TempExport.log(1), TempExport.log(2)].joined(separator: "\n"))
        let o2 = ExportReader().read(inputs: [named], analyses: [])
        #expect(o2.findings.map(\.rule) == ["integrity.missing-header"])
    }

    @Test func missingInputIsUnreadable() {
        let o = ExportReader().read(inputs: ["/nonexistent/pbsift/x.zip"], analyses: [])
        #expect(o.inputs.first?.status == .unreadable)
        #expect(o.anyIncomplete)
    }
}

@Suite struct RecordFilterTests {
    func rec(_ json: String) throws -> Record { Record(line: 1, json: try JSONDocument(string: json).root) }

    @Test func filters() throws {
        let log = try rec(#"{"type":"log","seq":1,"ts":"2026-11-29T10:15:02.000Z","level":"error","label":"checkout","message":"boom"}"#)
        let net = try rec(#"{"type":"network","seq":2,"ts":"2026-11-29T10:15:03.000Z","statusCode":503,"label":"grpc"}"#)
        var f = RecordFilter()
        #expect(f.keeps(log) && f.keeps(net))
        f.types = ["log"]
        #expect(f.keeps(log) && !f.keeps(net))
        f = RecordFilter(); f.minLevel = "warning"
        #expect(f.keeps(log) && !f.keeps(net))
        f.minLevel = "critical"
        #expect(!f.keeps(log))
        f = RecordFilter(); f.statuses = ["5xx"]
        #expect(!f.keeps(log) && f.keeps(net))
        f.statuses = ["404"]
        #expect(!f.keeps(net))
        f = RecordFilter(); f.since = Timestamp.parse("2026-11-29T10:15:02.500Z")
        #expect(!f.keeps(log) && f.keeps(net))
        // `grep` is matched against the printed (redacted) record by `RecordsAnalysis`, not here.
        f = RecordFilter(); f.grep = try NSRegularExpression(pattern: "bo+m")
        #expect(f.keeps(log) && f.keeps(net))
        f = RecordFilter(); f.labels = ["grpc"]
        #expect(!f.keeps(log) && f.keeps(net))
        #expect(
            RecordFilter.validStatus("5xx") && RecordFilter.validStatus("404") && !RecordFilter.validStatus("600")
                && !RecordFilter.validStatus("5x"))
    }
}

/// A record's type, seq and time, read on the tape, as the string-making reading reads them: escaped
/// and non-ASCII texts, numbers that are integral in other spellings, members of the wrong kind.
@Suite struct RecordFieldsTests {
    struct Case: Sendable, CustomStringConvertible {
        let json: String
        let type: RecordType
        let typeName: String
        let seq: Int?
        let ts: Double?
        var description: String { json }
    }
    static let t0 = Timestamp.parse("2026-11-29T10:15:02.500Z")!
    static let cases: [Case] = [
        Case(json: #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:02.500Z"}"#, type: .network, typeName: "network", seq: 2, ts: t0),
        Case(
            json: #"{"type":"net\u0077ork","seq":2.0,"ts":"2026-11-29T10:15:02\u002e500Z"}"#, type: .network, typeName: "network", seq: 2,
            ts: t0),
        Case(json: #"{"type":"session","seq":1e2}"#, type: .session, typeName: "session", seq: 100, ts: nil),
        Case(json: #"{"type":"log","seq":-0,"ts":12}"#, type: .log, typeName: "log", seq: 0, ts: nil),
        Case(json: #"{"type":"event","seq":1.5,"ts":null}"#, type: .event, typeName: "event", seq: nil, ts: nil),
        Case(json: #"{"type":"frame","seq":"3"}"#, type: .frame, typeName: "frame", seq: nil, ts: nil),
        Case(json: #"{"type":"métrica","seq":12345678901234567}"#, type: .other("métrica"), typeName: "métrica", seq: nil, ts: nil),
        Case(json: #"{"type":7}"#, type: .other(""), typeName: "", seq: nil, ts: nil),
        Case(json: #"{"seq":4}"#, type: .other(""), typeName: "", seq: 4, ts: nil),
        Case(json: #"{"type":"networks","type":"log"}"#, type: .other("networks"), typeName: "networks", seq: nil, ts: nil),
        Case(json: #"{"type":""}"#, type: .other(""), typeName: "", seq: nil, ts: nil),
        Case(json: #"["type","network"]"#, type: .other(""), typeName: "", seq: nil, ts: nil)
    ]

    @Test(arguments: cases) func fields(_ c: Case) throws {
        let doc = try JSONDocument(string: c.json)
        let r = Record(line: 1, json: doc.root)
        #expect(r.type == c.type && r.typeName == c.typeName && r.seq == c.seq && r.ts == c.ts)
        // The same as the values' own readings.
        #expect(r.typeName == (doc.root["type"]?.string ?? ""))
        #expect(r.type == RecordType(r.typeName))
        #expect(r.seq == doc.root["seq"]?.int)
        #expect(r.ts == doc.root["ts"]?.string.flatMap(Timestamp.parse))
        #expect(r.tsText == doc.root["ts"]?.string)
    }
}
