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

    public var json: JSONOut {
        var sev: [String: JSONOut] = [:]
        for s in Severity.allCases { sev[s.rawValue] = .int(bySeverity[s] ?? 0) }
        return .object(["inputs": .int(inputs), "incompleteInputs": .int(incompleteInputs), "records": .int(records),
                        "blobs": .int(blobs), "findings": .int(findings), "bySeverity": .object(sev),
                        "suppressed": .int(suppressed)])
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
    // MARK: text

    /// Grouped by input and file, then by record; terminal-escaped.
    public static func text(findings: [Finding], inputs: [InputSummary], summary: VerifySummary, colors: Colors = .off) -> String {
        var out = ""
        var lastGroup: String? = nil
        var lastRecord: String? = nil
        for f in findings {
            let group = f.input + "\u{0}" + (f.file ?? "")
            if group != lastGroup {
                if lastGroup != nil { out += "\n" }
                out += Escape.terminal(f.input) + (f.file.map { "  " + Escape.terminal($0) } ?? "") + "\n"
                lastGroup = group
                lastRecord = nil
            }
            var head: [String] = []
            if let l = f.line { head.append("line \(l)") }
            if let s = f.seq { head.append("seq \(s)") }
            if let r = f.recordId { head.append(Escape.terminal(r)) }
            let record = head.joined(separator: " · ")
            if record != lastRecord {
                out += "  " + (record.isEmpty ? "(no record)" : record) + "\n"
                lastRecord = record
            }
            let sev = f.severity.rawValue.uppercased().padding(toLength: 8, withPad: " ", startingAt: 0)
            out += "    \(colors.severity(f.severity, sev))  \(f.rule)  \(Escape.terminal(f.location ?? ""))\n"
            out += "              \(Escape.terminal(f.message))\n"
            if f.preview != nil || f.fingerprint != nil {
                var v: [String] = []
                if let p = f.preview { v.append("value " + Escape.terminal(p)) }
                if let fp = f.fingerprint { v.append("fingerprint " + fp) }
                out += "              " + v.joined(separator: "  ") + "\n"
            }
        }
        for i in inputs where i.status != .ok {
            out += (out.isEmpty ? "" : "\n") + "input \(Escape.terminal(i.path)) could not be verified in full (\(i.status.rawValue))\n"
            for e in i.errors { out += "  " + Escape.terminal(e) + "\n" }
        }
        if !out.isEmpty { out += "\n" }
        out += "pbsift verify: " + colors.bold(summary.headline) + " in \(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
        out += " (\(summary.records) record\(summary.records == 1 ? "" : "s"), \(summary.blobs) blob\(summary.blobs == 1 ? "" : "s") checked)"
        if summary.suppressed > 0 { out += "; \(summary.suppressed) accepted by the baseline" }
        out += "\n"
        return out
    }

    // MARK: json

    /// The shared envelope (`tool`, `inputs`, `findings`, `summary`, see `ReportEnvelope`) plus a
    /// `verify` section: `{"records", "blobs", "suppressed", "incompleteInputs", "inputs", "findings", "bySeverity"}`.
    public static func json(findings: [Finding], inputs: [InputSummary], summary: VerifySummary,
                            blobs: [String: BlobSummary] = [:]) -> String {
        ReportEnvelope.render(ReportEnvelope.document(inputs: inputs, findings: findings, blobs: blobs,
                                                      sections: ["verify": summary.json]))
    }

    // MARK: csv

    /// One row per finding with the columns every command's CSV of findings has
    /// (`ReportEnvelope.findingsCSVHeader`), RFC 4180, CRLF line ends.
    public static func csv(findings: [Finding]) -> String {
        ReportEnvelope.findingsCSV(findings)
    }

    // MARK: markdown

    /// A GitHub-flavoured table, for tickets and PR comments.
    public static func markdown(findings: [Finding], inputs: [InputSummary], summary: VerifySummary) -> String {
        var out = "## pbsift verify\n\n"
        out += "**\(summary.headline)** in \(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
        out += " (\(summary.records) record\(summary.records == 1 ? "" : "s"), \(summary.blobs) blob\(summary.blobs == 1 ? "" : "s") checked)"
        if summary.suppressed > 0 { out += "; \(summary.suppressed) accepted by the baseline" }
        out += "\n\n"
        for i in inputs where i.status != .ok {
            out += "- input \(Escape.markdownCode(i.path)) could not be verified in full: "
            out += i.errors.map(Escape.markdown).joined(separator: "; ") + "\n"
        }
        if inputs.contains(where: { $0.status != .ok }) { out += "\n" }
        guard !findings.isEmpty else { return out }
        out += "| Severity | Rule | File | Line | Seq | Record | Location | Value | Fingerprint | Message |\n"
        out += "|---|---|---|---|---|---|---|---|---|---|\n"
        for f in findings {
            let file = f.file.map { f.input + " " + $0 } ?? f.input
            let cells = [f.severity.rawValue, Escape.markdownCode(f.rule), Escape.markdown(file), f.line.map(String.init) ?? "",
                         f.seq.map(String.init) ?? "", Escape.markdown(f.recordId ?? ""), Escape.markdownCode(f.location ?? ""),
                         f.preview.map(Escape.markdownCode) ?? "", f.fingerprint.map(Escape.markdownCode) ?? "",
                         Escape.markdown(f.message)]
            out += "| " + cells.joined(separator: " | ") + " |\n"
        }
        return out
    }
}
