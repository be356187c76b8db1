import Foundation
import SiftTestSupport
import Testing
@_spi(Testing) @testable import SiftCore
@testable import SiftVerify

/// The format's example export, as the repository holds it.
private let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../SiftCoreTests/Fixtures/PalbeConsole").standardized.path

private func examplePath() -> String? {
    FileManager.default.fileExists(atPath: example) ? example : nil
}

/// A small export in a temporary folder.
private struct TempExport {
    let dir: URL
    init() throws {
        dir = Scratch.directory("verify")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sessions"), withIntermediateDirectories: true)
    }
    static let header =
        #"{"type":"session","seq":0,"ts":"2026-11-29T10:15:01.004Z","formatVersion":1,"sessionId":"ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13","launchedAt":"2026-11-29T10:15:01.002Z","app":{"bundleId":"com.acme.shop","version":"4.2.0","build":"512"},"sdk":{"name":"palbe-swift","version":"3.1.0"},"device":{"model":"iPhone16,1","system":"iOS 18.1.1","locale":"en_GB","timeZone":"Europe/London"},"environmentRef":"env_prod_eu","userId":"usr_123"}"#
    func write(_ lines: [String]) throws {
        let p = dir.appendingPathComponent("sessions/\(Harness.sessionId).jsonl")
        try Data(([TempExport.header] + lines).joined(separator: "\n").appending("\n").utf8).write(to: p)
    }
    func writeBlob(_ bytes: [UInt8]) throws {
        let hex = SHA256Hex.of(bytes)
        let d = dir.appendingPathComponent("blobs/\(hex.prefix(2))")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try Data(bytes).write(to: d.appendingPathComponent(hex))
    }
    func cleanup() { try? FileManager.default.removeItem(at: dir) }
}

@Suite struct EndToEndTests {
    @Test func cleanExampleRaisesNoFalseAlarm() throws {
        let path = try #require(examplePath())
        // Through the reader…
        let a = VerifyAnalysis()
        let o = ExportReader().read(inputs: [path], analyses: [a])
        #expect(o.findings.isEmpty, "\(o.findings.map { "\($0.rule) \($0.location ?? "")" })")
        #expect(a.recordsScanned > 10 && a.blobsScanned == 1)
        // …and every line by hand.
        let sessions = try FileManager.default.contentsOfDirectory(atPath: path + "/sessions").filter { $0.hasSuffix(".jsonl") }
        #expect(!sessions.isEmpty)
        for s in sessions {
            let text = try String(contentsOfFile: path + "/sessions/" + s, encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            let f = try Harness.run(lines)
            #expect(f.isEmpty, "\(f.map { "\($0.rule) \($0.location ?? "")" })")
        }
    }

    static let planted: [String] = [
        "ghp_" + Fake.s(36, Fake.alnum, seed: 15),
        Fake.jwtHeader(seed: 1) + ".eyJ" + Fake.s(40, Fake.b64url, seed: 2) + "." + Fake.s(43, Fake.b64url, seed: 3),
        "hunter" + "2",
        "AKIA" + Fake.s(16, Fake.upperDigit, seed: 8),
        "pbu_" + Fake.s(43, Fake.b64url, seed: 12)
    ]

    private func plantedExport() throws -> TempExport {
        let t = try TempExport()
        let p = EndToEndTests.planted
        let blob = Array(#"{"user":{"password":"\#(p[2])","key":"\#(p[4])"}}"#.utf8)
        try t.writeBlob(blob)
        try t.write([
            Harness.network(
                seq: 1, url: "https://api.example.test/cb?code=" + p[2], requestHeaders: [("Authorization", "Bearer " + p[1])],
                requestBody: Harness.textBody(#"{"note":"\#(p[0])"}"#), responseBody: Harness.blobBody(blob)),
            Harness.log(seq: 2, message: "aws key " + p[3] + " | <script>`=cmd`", metadata: .object(["token": .string(p[2])]))
        ])
        return t
    }

    /// Every format `verify` prints, the shared finding formats included.
    static func render(_ format: String, findings: Redacted<[Finding]>, inputs: [InputSummary], summary: VerifySummary) -> String {
        switch format {
        case "text": return VerifyRender.text(findings: findings, inputs: Redactor.identity().apply(inputs), summary: summary)
        case "json": return VerifyRender.json(findings: findings, inputs: Redactor.identity().apply(inputs), summary: summary)
        case "csv": return VerifyRender.csv(findings: findings)
        case "markdown": return VerifyRender.markdown(findings: findings, inputs: Redactor.identity().apply(inputs), summary: summary)
        case "sarif": return SARIFDocument.document(document(findings, inputs)).render(pretty: true)
        default: return JUnitDocument.render(document(findings, inputs), failOn: .high)
        }
    }

    static func document(_ findings: Redacted<[Finding]>, _ inputs: [InputSummary]) -> FindingsDocument {
        FindingsDocument(
            command: "verify", findings: findings, inputs: Redactor.identity().apply(inputs),
            rule: { id in VerifyRules.rules.first { $0.id == id } })
    }

    @Test(arguments: ["text", "json", "csv", "markdown", "sarif", "junit"])
    func noFormatContainsAPlantedSecret(_ format: String) throws {
        let t = try plantedExport()
        defer { t.cleanup() }
        let a = VerifyAnalysis()
        let o = ExportReader().read(inputs: [t.dir.path], analyses: [a])
        let findings = o.findings
        #expect(findings.count >= 7)
        let summary = VerifySummary(findings: findings, inputs: o.inputs, records: a.recordsScanned, blobs: a.blobsScanned)
        let out = Self.render(format, findings: Redactor.verify().apply(findings), inputs: o.inputs, summary: summary)
        for secret in EndToEndTests.planted {
            #expect(!out.contains(secret), "\(format) leaks a planted value")
        }
        // The fingerprints are there to match on.
        #expect(out.contains(SecretMask.fingerprint(EndToEndTests.planted[0])))
        if format == "json" || format == "sarif" {
            _ = try JSONDocument(string: out)
        }
    }

    @Test func parallelAndSerialAgree() throws {
        let t = try plantedExport()
        defer { t.cleanup() }
        let a = VerifyAnalysis(parallel: true), b = VerifyAnalysis(parallel: false)
        let oa = ExportReader().read(inputs: [t.dir.path], analyses: [a])
        let ob = ExportReader().read(inputs: [t.dir.path], analyses: [b])
        #expect(oa.findings == ob.findings)
        #expect(a.recordsScanned == b.recordsScanned && a.blobsScanned == b.blobsScanned && a.bytesScanned == b.bytesScanned)
    }

    @Test func sarifHasWhatCodeScanningNeeds() throws {
        let t = try plantedExport()
        defer { t.cleanup() }
        let o = ExportReader().read(inputs: [t.dir.path], analyses: [VerifyAnalysis()])
        let doc = try JSONDocument(string: SARIFDocument.document(Self.document(Redactor.verify().apply(o.findings), o.inputs)).render())
        let root = doc.root
        #expect(root["version"]?.string == "2.1.0")
        #expect(root["$schema"]?.string?.contains("sarif-2.1.0") == true)
        let run = try #require(root["runs"]?.elements.first)
        let driver = try #require(run["tool", "driver"])
        #expect(driver["name"]?.string == "pbsift")
        #expect(driver["informationUri"]?.string != nil)
        let rules = driver["rules"]?.elements ?? []
        let ruleIds = rules.compactMap { $0["id"]?.string }
        #expect(!rules.isEmpty)
        for r in rules {
            #expect(
                r["shortDescription", "text"]?.string != nil && r["fullDescription", "text"]?.string != nil
                    && r["help", "text"]?.string != nil)
            #expect(["error", "warning", "note"].contains(r["defaultConfiguration", "level"]?.string ?? ""))
            // The full description is the rule's long text from the registry, not its summary again.
            let rule = try #require(VerifyRules.rules.first { $0.id == r["id"]?.string })
            #expect(r["fullDescription", "text"]?.string == (rule.detail.isEmpty ? rule.summary : rule.detail))
            #expect(r["help", "text"]?.string == rule.help)
        }
        let results = run["results"]?.elements ?? []
        #expect(results.count == o.findings.count)
        for r in results {
            let id = try #require(r["ruleId"]?.string)
            let idx = try #require(r["ruleIndex"]?.int)
            #expect(ruleIds[idx] == id)
            #expect(["error", "warning", "note"].contains(r["level"]?.string ?? ""))
            #expect(r["message", "text"]?.string != nil)
            let loc = try #require(r["locations"]?.elements.first?["physicalLocation"])
            #expect(loc["artifactLocation", "uri"]?.string?.hasSuffix(".jsonl") == true)
            #expect((loc["region", "startLine"]?.int ?? 0) >= 1)
            let fp = r["partialFingerprints", "pbsift/v1"]?.string ?? ""
            #expect(fp.hasPrefix("sha256:") || fp.hasPrefix("hmac:") || fp.hasPrefix("loc:"))
        }
    }

    @Test func csvAndMarkdownEscapeUntrustedText() {
        let f = Finding(
            rule: Rule("secret.jwt", .info, "a test rule").ref, severity: .high, input: "x", file: "s.jsonl", line: 1,
            location: "request.headers[=cmd|x]", message: "a,b \"c\"\nd", preview: "eyJh…(9 chars)", fingerprint: "sha256:00")
        let id = Redactor.identity()
        let csv = VerifyRender.csv(findings: id.apply([f]))
        #expect(csv.contains("\"a,b \"\"c\"\"\nd\""))
        let md = VerifyRender.markdown(findings: id.apply([f]), inputs: id.apply([InputSummary]()), summary: VerifySummary(findings: [f]))
        #expect(md.contains("\\|") && !md.contains("\nd |"))
        let text = VerifyRender.text(
            findings: id.apply([
                Finding(rule: Rule("secret.jwt", .info, "a test rule").ref, severity: .high, input: "x\u{1b}[31m", message: "m")
            ]),
            inputs: id.apply([InputSummary]()), summary: VerifySummary(findings: []))
        #expect(!text.contains("\u{1b}"))
    }

    @Test func baselineSuppressesByRuleAndFingerprint() throws {
        let t = try plantedExport()
        defer { t.cleanup() }
        let o = ExportReader().read(inputs: [t.dir.path], analyses: [VerifyAnalysis()])
        let base = Baseline(findings: Array(o.findings.prefix(2)))
        let text = base.render()
        for secret in EndToEndTests.planted { #expect(!text.contains(secret)) }
        let loaded = try Baseline.parse(text: text)
        #expect(loaded == base)
        let (kept, suppressed) = loaded.apply(o.findings)
        #expect(suppressed.count >= 2 && kept.count == o.findings.count - suppressed.count)
        let summary = VerifySummary(findings: kept, suppressed: suppressed.count, inputs: o.inputs)
        #expect(
            VerifyRender.text(findings: Redactor.identity().apply(kept), inputs: Redactor.identity().apply(o.inputs), summary: summary)
                .contains("accepted by the baseline"))
        // A bare array is accepted too.
        let arr = try Baseline.parse(text: #"[{"rule":"secret.jwt","fingerprint":"sha256:0011223344556677"}]"#)
        #expect(arr.entries.count == 1)
        #expect(throws: VerifyError.self) { try Baseline.parse(text: #"{"x":1}"#) }
    }

    @Test func detectorIdsTheConfigMayDisable() {
        for id in ["jwt", "secret.jwt", "redaction.query"] { #expect(VerifyConfig.isKnownDetector(id), "\(id)") }
        for id in ["jwtt", "secret.nope", ""] { #expect(!VerifyConfig.isKnownDetector(id), "\(id)") }
    }
}
