import Foundation
import SiftCore

extension VerifyRender {
    /// Grouped by input and file, then by record; terminal-escaped.
    public static func text(
        findings redactedFindings: Redacted<[Finding]>, inputs redactedInputs: Redacted<[InputSummary]>, summary: VerifySummary,
        colors: Colors = .off
    ) -> String {
        var out = textFindings(findings: redactedFindings, inputs: redactedInputs, colors: colors)
        if !out.isEmpty { out += "\n" }
        return out + textSummary(summary, colors: colors)
    }

    /// The findings grouped by input and file, then by record, and the inputs not verified in full:
    /// the text before the summary line (empty when there is nothing to list). A batch read input by
    /// input prints this for each input as it is read, a blank line between them.
    public static func textFindings(
        findings redactedFindings: Redacted<[Finding]>, inputs redactedInputs: Redacted<[InputSummary]>, colors: Colors = .off
    ) -> String {
        let findings = redactedFindings.value, inputs = redactedInputs.value
        var out = ""
        var lastGroup: String? = nil
        var lastRecord: String? = nil
        for f in findings {
            let group = f.input + "\u{0}" + (f.file ?? "")
            if group != lastGroup {
                if lastGroup != nil { out += "\n" }
                // A file that is the input itself (a `.jsonl` given alone, `-`) is named once.
                let file = f.file.flatMap { $0 == f.input || f.input.hasSuffix("/" + $0) ? nil : $0 }
                out += Escape.terminal(f.input) + (file.map { "  " + Escape.terminal($0) } ?? "") + "\n"
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
        return out
    }

    /// `pbsift verify: 11 findings (8 high, 3 low) in 1 input (54 records, 2 blobs checked)`.
    public static func textSummary(_ summary: VerifySummary, colors: Colors = .off) -> String {
        var out = "pbsift verify: " + colors.bold(summary.headline) + " in \(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
        out +=
            " (\(summary.records) record\(summary.records == 1 ? "" : "s"), \(summary.blobs) blob\(summary.blobs == 1 ? "" : "s") checked)"
        if summary.suppressed > 0 { out += "; \(summary.suppressed) accepted by the baseline" }
        out += "\n"
        return out
    }
}
