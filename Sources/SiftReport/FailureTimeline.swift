import Foundation
import SiftCore

/// Keeps, for each failed network record, the records of its session from `context` seconds before
/// it to `context` seconds after, while the export streams past: a bounded look-back buffer per
/// session, and open windows that collect what follows. Memory is bounded in records (`maxWindows`,
/// `maxPerWindow`) and in bytes, counted as held (a record's text and its parsed tape): a record whose
/// line is over `maxRecordBytes` is kept as a slim copy of the fields a timeline shows (each text cut
/// to 1 KiB at a word's end), and the windows stop growing once they hold `maxBytes` — never by the
/// session's size or its lines'.
public final class FailureTimeline: Analysis, @unchecked Sendable {
    /// One failed request and the records around it (its own included), in file order.
    public struct Window: Sendable {
        public var input: String
        public var file: String
        public var sessionId: String?
        public var failed: Record
        public var records: [Record]
        /// It holds less than its time span: closed at `maxPerWindow` records or at `maxBytes`, or its
        /// look-back held more records than the half of `maxPerWindow` it keeps.
        public var cutShort = false
    }

    public let context: Double
    public let maxWindows: Int
    public let maxPerWindow: Int
    /// Records with a longer line are kept as a slim copy (`slim(_:)`).
    public static let maxRecordBytes = 2048
    /// The look-back buffer keeps records whole (slimmed only when a window takes them) while they
    /// hold at most this much together; past it, a record is slimmed as it is read.
    static let maxWholeBytes = 2 << 20
    /// The most bytes the windows' records hold together; past it, windows stop growing and new
    /// failures are dropped (counted in `dropped`).
    public let maxBytes: Int
    /// Bytes held by the windows' records (text and tape).
    package private(set) var heldBytes = 0
    package private(set) var windows: [Window] = []
    /// Failed records seen beyond `maxWindows` (counted, not kept).
    package private(set) var dropped = 0
    /// How many windows hold less than their time span (`Window.cutShort`).
    public var cutShort: Int { windows.reduce(0) { $0 + ($1.cutShort ? 1 : 0) } }

    /// The look-back: records whole (`whole` > 0, what they hold) or slimmed (0).
    private var recent: [(record: Record, whole: Int)] = []
    private var recentWholeBytes = 0
    private var open: [Int] = [] // indices into `windows` still collecting

    public init(context: Double = 10, maxWindows: Int = 20, maxPerWindow: Int = 60, maxBytes: Int = 8 << 20) {
        self.context = context
        self.maxWindows = maxWindows
        self.maxPerWindow = maxPerWindow
        self.maxBytes = maxBytes
    }

    /// The fields a timeline shows (`SupportReport.summary(of:)`, seq, id, time), each text cut to 1 KiB.
    static let shownFields = [
        "type", "seq", "ts", "id", "level", "label", "message", "name", "method", "url",
        "statusCode", "state"
    ]

    /// `r` itself when its line is small; else a new record holding only `shownFields` and the error's
    /// description, so a 14 MiB record costs a few KiB here.
    public static func slim(_ r: Record) -> Record {
        guard r.json.doc.bytes.count > maxRecordBytes else { return r }
        func cut(_ v: JSONValue) -> JSONOut? {
            if let s = v.string { return .string(cutText(s)) }
            if let i = v.int { return .int(i) }
            return nil
        }
        var o: [String: JSONOut] = [:]
        for key in shownFields { if let v = r.json[key], let c = cut(v) { o[key] = c } }
        if let d = r.json["error", "description"], let c = cut(d) { o["error"] = .object(["description": c]) }
        guard let doc = try? JSONDocument(string: JSONOut.object(o).render(pretty: false)) else { return r }
        return Record(line: r.line, json: doc.root)
    }

    /// `s` cut to `limit` characters without the word the cut falls in: it backs up to the last space
    /// or delimiter (`"` `'` `&` `,` `;`), so no part of a credential straddling the cut is kept where
    /// the redactor could no longer see it whole; with no such place, only a note of the length is kept.
    static func cutText(_ s: String, limit: Int = 1024) -> String {
        guard s.count > limit else { return s }
        let head = s.prefix(limit)
        let delimiters: Set<Character> = [" ", "\t", "\n", "\r", "\"", "'", "&", ",", ";"]
        if let i = head.lastIndex(where: { delimiters.contains($0) }) { return String(head[..<i]) }
        return "…(\(s.utf8.count) bytes cut)"
    }

    public func beginSession(_ session: SessionContext) {
        recent.removeAll()
        recentWholeBytes = 0
        open.removeAll()
    }

    public func record(_ full: Record, session: SessionContext) {
        guard full.type != .session else { return }
        // Every window taken and none still collecting: nothing read from here on is shown, and a
        // failure is only counted (the look-back would feed no window).
        if open.isEmpty && windows.count >= maxWindows {
            if NetworkRecord.failed(full) { dropped += 1 }
            return
        }
        // Slimmed when a window takes it (slimming is the same whenever it is done): most records
        // are never shown, and slimming every one cost more than the rest of the timeline.
        var slimmed: Record?
        func shown() -> Record {
            if let s = slimmed { return s }
            let s = FailureTimeline.slim(full)
            slimmed = s
            return s
        }
        let t = full.ts
        // Close windows this record is past; add it to the others.
        open.removeAll { i in
            guard let end = windows[i].failed.ts.map({ $0 + context }) else { return true }
            if let t, t > end { return true }
            let record = shown()
            let size = record.json.doc.heldBytes
            if windows[i].records.count >= maxPerWindow || heldBytes + size > maxBytes {
                windows[i].cutShort = true
                return true
            }
            windows[i].records.append(record)
            heldBytes += size
            return false
        }
        if NetworkRecord.failed(full) {
            let record = shown()
            let inSpan = recent.map(\.record).filter { r in
                guard let rt = r.ts, let t else { return false }
                return rt >= t - context
            }
            let lookBackCut = inSpan.count > maxPerWindow / 2
            let before = inSpan.suffix(maxPerWindow / 2).map(FailureTimeline.slim)
            let cost = before.reduce(record.json.doc.heldBytes) { $0 + $1.json.doc.heldBytes }
            if windows.count < maxWindows && heldBytes + cost <= maxBytes {
                heldBytes += cost
                windows.append(
                    Window(
                        input: session.input.path, file: session.file, sessionId: session.sessionId,
                        failed: record, records: before + [record], cutShort: lookBackCut))
                open.append(windows.count - 1)
            } else {
                dropped += 1
            }
        }
        // The look-back keeps records whole while they fit its bytes, else slimmed (bounded either way).
        let size = full.json.doc.heldBytes
        if recentWholeBytes + size <= FailureTimeline.maxWholeBytes {
            recent.append((full, size))
            recentWholeBytes += size
        } else {
            recent.append((shown(), 0))
        }
        var cut = 0
        if let t { cut = recent.firstIndex { ($0.record.ts ?? t) >= t - context } ?? recent.count }
        cut = max(cut, recent.count - maxPerWindow)
        if cut > 0 {
            for k in 0..<cut { recentWholeBytes -= recent[k].whole }
            recent.removeFirst(cut)
        }
    }
}
