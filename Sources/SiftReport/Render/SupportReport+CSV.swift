import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

extension SupportReport {
    // MARK: CSV

    /// One row per finding, the columns of every other command's CSV of findings.
    public func csv() -> String { ReportEnvelope.findingsCSV(findings) }
}
