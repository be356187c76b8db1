import Foundation
import SiftCore

extension VerifyRender {
    /// A GitHub-flavoured table, for tickets and PR comments.
    public static func markdown(
        findings redactedFindings: Redacted<[Finding]>, inputs redactedInputs: Redacted<[InputSummary]>, summary: VerifySummary
    ) -> String {
        let findings = redactedFindings.value, inputs = redactedInputs.value
        var out = "## pbsift verify\n\n"
        out += "**\(summary.headline)** in \(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
        out +=
            " (\(summary.records) record\(summary.records == 1 ? "" : "s"), \(summary.blobs) blob\(summary.blobs == 1 ? "" : "s") checked)"
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
            let cells = [
                f.severity.rawValue, Escape.markdownCode(f.rule), Escape.markdown(file), f.line.map(String.init) ?? "",
                f.seq.map(String.init) ?? "", Escape.markdown(f.recordId ?? ""), Escape.markdownCode(f.location ?? ""),
                f.preview.map(Escape.markdownCode) ?? "", f.fingerprint.map(Escape.markdownCode) ?? "",
                Escape.markdown(f.message)
            ]
            out += "| " + cells.joined(separator: " | ") + " |\n"
        }
        return out
    }
}
