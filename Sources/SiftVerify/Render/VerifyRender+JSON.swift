import Foundation
import SiftCore

extension VerifyRender {
    /// The shared envelope (`tool`, `inputs`, `findings`, `summary`, see `ReportEnvelope`) plus a
    /// `verify` section: `{"records", "blobs", "suppressed", "incompleteInputs", "inputs", "findings", "bySeverity"}`.
    public static func json(
        findings: Redacted<[Finding]>, inputs: Redacted<[InputSummary]>, summary: VerifySummary,
        blobs: [String: BlobSummary] = [:]
    ) -> String {
        ReportEnvelope.render(
            ReportEnvelope.document(
                inputs: inputs.value, findings: findings.value, blobs: blobs,
                sections: ["verify": summary.json]))
    }
}
