import Foundation
import SiftArchive
import SiftCore

/// Counts shown at the end of every format.
public struct VerifySummary: Sendable, Equatable {
    public var inputs: Int
    /// Inputs not read in full (exit status 2).
    public var incompleteInputs: Int
    public var records: Int
    public var blobs: Int
    /// Findings reported (after the baseline).
    public var findings: Int
    public var bySeverity: [Severity: Int]
    /// Findings the baseline accepted (not reported).
    public var suppressed: Int

    public init(findings: [Finding], suppressed: Int = 0, inputs: [InputSummary] = [], records: Int = 0, blobs: Int = 0) {
        self.inputs = inputs.count
        self.incompleteInputs = inputs.filter { $0.status != .ok }.count
        self.records = records
        self.blobs = blobs
        self.findings = findings.count
        var by: [Severity: Int] = [:]
        for f in findings { by[f.severity, default: 0] += 1 }
        self.bySeverity = by
        self.suppressed = suppressed
    }

    /// Adds another run's counts (a batch read input by input sums its inputs' summaries).
    public static func += (a: inout VerifySummary, b: VerifySummary) {
        a.inputs += b.inputs
        a.incompleteInputs += b.incompleteInputs
        a.records += b.records
        a.blobs += b.blobs
        a.findings += b.findings
        for (k, v) in b.bySeverity { a.bySeverity[k, default: 0] += v }
        a.suppressed += b.suppressed
    }

    public var json: JSONOut {
        var sev: [String: JSONOut] = [:]
        for s in Severity.allCases { sev[s.rawValue] = .int(bySeverity[s] ?? 0) }
        return .object([
            "inputs": .int(inputs), "incompleteInputs": .int(incompleteInputs), "records": .int(records),
            "blobs": .int(blobs), "findings": .int(findings), "bySeverity": .object(sev),
            "suppressed": .int(suppressed)
        ])
    }

    /// `3 findings (1 critical, 2 high)` / `no findings`; led by `not verified in full (N inputs not
    /// read): ` when an input was not read in full, so "no findings" never stands alone for bytes
    /// nobody checked.
    var headline: String {
        var head = ""
        if incompleteInputs > 0 {
            head = "not verified in full (\(incompleteInputs) input\(incompleteInputs == 1 ? "" : "s") not read in full): "
        }
        if findings == 0 { return head + "no findings" }
        let parts = Severity.allCases.reversed().compactMap { s -> String? in
            guard let n = bySeverity[s], n > 0 else { return nil }
            return "\(n) \(s.rawValue)"
        }
        return head + "\(findings) finding\(findings == 1 ? "" : "s") (\(parts.joined(separator: ", ")))"
    }
}

/// Renderers of `verify`'s own formats: pure functions from redacted findings to text. Every
/// format carries the masked preview and the fingerprint only, never a value. SARIF and JUnit XML
/// are the shared finding formats (`SiftCore/Output/Reporters`).
public enum VerifyRender {
}
