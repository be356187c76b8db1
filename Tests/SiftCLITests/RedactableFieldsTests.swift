import Foundation
import SiftCore
@testable import SiftCorrelate
import SiftVerify
import SiftWaterfall
import Testing
@testable import SiftCLI

/// Every `String` of every redactable model goes through the redactor: a value planted in each
/// field is gone after `redacted(by:)`, found by walking the result with `Mirror` (so a field added
/// to a model and left out of its `redacted(by:)` fails here, not in a ticket).
@Suite struct RedactableFieldsTests {
    /// A GitHub-token-shaped canary, assembled here, distinct per field.
    static func canary(_ n: Int) -> String { "gh" + "p_" + String(format: "Zq%02d", n) + String(repeating: "a1B2c3", count: 5) + "xy" }

    /// Every string reachable from `value` (through structs, enums, optionals, collections, classes).
    static func strings(in value: Any) -> [String] {
        var out: [String] = []
        var seen = Set<ObjectIdentifier>()
        func walk(_ v: Any, depth: Int) {
            guard depth < 64 else { return }
            if let s = v as? String { out.append(s); return }
            if let s = v as? Substring { out.append(String(s)); return }
            let m = Mirror(reflecting: v)
            if m.displayStyle == .class, let o = v as AnyObject?, !seen.insert(ObjectIdentifier(o)).inserted { return }
            for c in m.children { walk(c.value, depth: depth + 1) }
            var s = m.superclassMirror
            while let sm = s { for c in sm.children { walk(c.value, depth: depth + 1) }; s = sm.superclassMirror }
        }
        walk(value, depth: 0)
        return out
    }

    static func leaks(_ value: Any, of planted: [String]) -> [String] {
        let all = strings(in: value)
        return planted.filter { p in all.contains { $0.contains(p) } }
    }

    /// Hand-built models: a canary in every string field a constructor takes.
    @Test func everyFieldOfTheJoinsModelsIsRedacted() throws {
        var n = 0
        func c() -> String { n += 1; return Self.canary(n) }
        let path = "/tmp/export.zip" // the user's own path: trusted, printed as given
        let finding = Finding(
            rule: ReaderRule.seqGap.id, severity: .high, input: path, file: c(), sessionId: c(), seq: 1, line: 2,
            recordId: c(), location: c(), message: c(), preview: nil, fingerprint: nil)
        let entry = NetworkEntry(
            input: path, file: c(), sessionId: c(), seq: 1, line: 2, recordId: c(), requestId: c(),
            echoedRequestId: c(), method: c(), url: "https://api.example/" + c(), statusCode: 200, state: c(),
            ts: 1, duration: 0.2, requestStart: 1, requestEnd: 1.1, responseStart: 1.2, responseEnd: 1.3)
        let session = SessionEntry(input: path, file: c(), sessionId: c(), userId: c(), launchedAt: 1, firstTs: 1, lastTs: 2)
        let parsed = ParsedLine(format: .platform, ts: 1.1, level: c(), status: 502, message: c())
        var scan = LogScanResult()
        scan.lines = [ServerLine(file: c(), line: 7, ids: [], parsed: parsed)]
        let report = Correlator.correlate(requests: [entry], sessions: [session], scan: scan)
        let planted = (1...n).map(Self.canary)
        let redactor = Redactor.verify(known: planted)
        #expect(Self.leaks(redactor.apply(finding).value, of: planted).isEmpty)
        #expect(Self.leaks(redactor.apply(entry).value, of: planted).isEmpty)
        #expect(Self.leaks(redactor.apply(session).value, of: planted).isEmpty)
        #expect(Self.leaks(redactor.apply(scan.lines[0]).value, of: planted).isEmpty)
        #expect(Self.leaks(redactor.apply(report).value, of: planted).isEmpty, "\(Self.leaks(redactor.apply(report).value, of: planted))")
        // The walk sees the fields: unredacted, the canaries are there.
        #expect(Self.leaks(finding, of: planted).count >= 5 && !Self.leaks(entry, of: planted).isEmpty)
    }

    /// Models the reader and the analyses build from an export with a credential in every field.
    @Test func everyFieldOfTheReadersModelsIsRedacted() throws {
        let fx = try #require(LeakMatrixTests.fixture)
        let planted = fx.secrets.map(\.1)
        let verify = VerifyAnalysis()
        verify.keepSecretValues()
        let waterfall = WaterfallAnalysis()
        let outcome = ExportReader().read(inputs: [fx.export.path], analyses: [verify, waterfall])
        let redactor = Redactor.verify(known: planted)
        let sessions = waterfall.takeSessions()
        #expect(!Self.leaks(sessions, of: planted).isEmpty, "the fixture reaches the models")
        let leakedOutcome = Self.leaks(redactor.apply(outcome).value, of: planted)
        let field = fx.secrets.filter { leakedOutcome.contains($0.1) }.map(\.0)
        let holders = Self.strings(in: redactor.apply(outcome).value).filter { s in leakedOutcome.contains { s.contains($0) } }
        #expect(
            leakedOutcome.isEmpty, "ReadOutcome: \(field) survive in \(holders.map { $0.replacingOccurrences(of: "ghp_", with: "g-h-p_") })"
        )
        let leakedSessions = Self.leaks(redactor.apply(sessions).value, of: planted)
        #expect(leakedSessions.isEmpty, "WaterfallSession: \(leakedSessions.count) planted values survive")
    }
}
