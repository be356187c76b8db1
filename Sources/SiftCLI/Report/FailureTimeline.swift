import Foundation
import SiftCore

/// Keeps, for each failed network record, the records of its session from `context` seconds before
/// it to `context` seconds after, while the export streams past: a bounded look-back buffer per
/// session, and open windows that collect what follows. Memory is bounded by `maxWindows` and
/// `maxPerWindow`, never by the session's size.
public final class FailureTimeline: Analysis, @unchecked Sendable {
    /// One failed request and the records around it (its own included), in file order.
    public struct Window: Sendable {
        public var input: String
        public var file: String
        public var sessionId: String?
        public var failed: Record
        public var records: [Record]
    }

    public let context: Double
    public let maxWindows: Int
    public let maxPerWindow: Int
    public private(set) var windows: [Window] = []
    /// Failed records seen beyond `maxWindows` (counted, not kept).
    public private(set) var dropped = 0

    private var recent: [Record] = []
    private var open: [Int] = []   // indices into `windows` still collecting

    public init(context: Double = 10, maxWindows: Int = 20, maxPerWindow: Int = 60) {
        self.context = context
        self.maxWindows = maxWindows
        self.maxPerWindow = maxPerWindow
    }

    /// A network record that failed: state failure or cancelled, or an HTTP status of 400 or more.
    public static func isFailure(_ r: Record) -> Bool {
        guard r.type == .network else { return false }
        if let s = r.json["state"]?.string, s == "failure" || s == "cancelled" { return true }
        if let code = r.json["statusCode"]?.int, code >= 400 { return true }
        return false
    }

    public func beginSession(_ session: SessionContext) {
        recent.removeAll()
        open.removeAll()
    }

    public func record(_ record: Record, session: SessionContext) {
        guard record.type != .session else { return }
        let t = record.ts
        // Close windows this record is past; add it to the others.
        open.removeAll { i in
            guard let end = windows[i].failed.ts.map({ $0 + context }) else { return true }
            if let t, t > end { return true }
            if windows[i].records.count >= maxPerWindow { return true }
            windows[i].records.append(record)
            return false
        }
        if FailureTimeline.isFailure(record) {
            if windows.count < maxWindows {
                let before = recent.filter { r in
                    guard let rt = r.ts, let t else { return false }
                    return rt >= t - context
                }.suffix(maxPerWindow / 2)
                windows.append(Window(input: session.input.path, file: session.file, sessionId: session.sessionId,
                                      failed: record, records: Array(before) + [record]))
                open.append(windows.count - 1)
            } else {
                dropped += 1
            }
        }
        recent.append(record)
        if let t {
            let cut = recent.firstIndex { ($0.ts ?? t) >= t - context } ?? recent.count
            if cut > 0 { recent.removeFirst(cut) }
        }
        if recent.count > maxPerWindow { recent.removeFirst(recent.count - maxPerWindow) }
    }
}
