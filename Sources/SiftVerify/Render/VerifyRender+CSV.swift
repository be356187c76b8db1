import Foundation
import SiftCore

extension VerifyRender {
    /// One row per finding with the columns every command's CSV of findings has
    /// (`ReportEnvelope.findingsCSVHeader`), RFC 4180, CRLF line ends.
    public static func csv(findings: Redacted<[Finding]>) -> String {
        ReportEnvelope.findingsCSV(findings.value)
    }
}
