import Foundation
import SiftCore

/// Renders a `CorrelationReport` that went through the `Redactor`. Pure functions: report in, text out.
public enum CorrelationRender {
    static func ts(_ t: Double?) -> JSONOut { t.map { .string(Timestamp.format($0, micro: true)) } ?? .null }
    static func ms(_ d: Double?) -> JSONOut { d.map { .double(($0 * 1000).rounded() / 1000) } ?? .null }

}

extension ClockSkew {
    /// The skew in words: `server clock 2.49 s ahead of the device`, `4 h 7 min behind the device`.
    public static func words(_ s: Double) -> String {
        guard s.isFinite else { return "server clock offset unknown" }
        let a = abs(s)
        let side = s >= 0 ? "ahead of" : "behind"
        let amount: String
        if a < 0.001 {
            amount = String(format: "%.2f ms", a * 1000)
        } else if a < 0.01 {
            amount = String(format: "%.1f ms", a * 1000)
        } else if a < 0.9995 {
            amount = String(format: "%.0f ms", a * 1000)
        } else if a < 120 {
            amount = String(format: "%.2f s", a)
        } else if a < 7200 {
            amount = "\(Int(a / 60)) min \(Int(a.truncatingRemainder(dividingBy: 60))) s"
        } else if a < 1e9 {
            amount = "\(Int(a / 3600)) h \(Int(a.truncatingRemainder(dividingBy: 3600) / 60)) min"
        } else {
            amount = "more than 30 years"
        }
        return "server clock \(amount) \(side) the device"
    }
}
