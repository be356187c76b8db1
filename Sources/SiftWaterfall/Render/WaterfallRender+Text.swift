import Foundation
import SiftCore

/// What one bar cell shows.
enum BarStyle: Int, CaseIterable {
    case blocked, dns, tcp, tls, request, waiting, download
    /// A request with a total but no phases (custom record, no metrics, pending).
    case totalOnly
    /// Served from the local cache: a total, no phases.
    case cache
    /// The time a request that ended without a response (a timeout, a failure) waited after its last
    /// phase: drawn and named alike in every renderer (`x`, "no response").
    case noResponse

    init(_ p: WaterfallPhase) { self = BarStyle(rawValue: p.order) ?? .waiting }

    /// The glyph without colour.
    var glyph: Character {
        switch self {
        case .blocked: "-"
        case .dns: "d"
        case .tcp: "t"
        case .tls: "s"
        case .request: "^"
        case .waiting: "="
        case .download: "#"
        case .totalOnly: "~"
        case .cache: "*"
        case .noResponse: "x"
        }
    }

    /// SGR foreground colour for terminals.
    var sgr: String {
        switch self {
        case .blocked: "90"
        case .dns: "36"
        case .tcp: "33"
        case .tls: "35"
        case .request: "91"
        case .waiting: "32"
        case .download: "34"
        case .totalOnly: "37"
        case .cache: "93"
        case .noResponse: "31"
        }
    }

    /// Fill colour in SVG.
    var fill: String {
        switch self {
        case .blocked: "#b0b0b0"
        case .dns: "#009688"
        case .tcp: "#ff9800"
        case .tls: "#9c27b0"
        case .request: "#e53935"
        case .waiting: "#43a047"
        case .download: "#1e88e5"
        case .totalOnly: "#90a4ae"
        case .cache: "#fdd835"
        case .noResponse: "#ef9a9a"
        }
    }

    var name: String {
        switch self {
        case .totalOnly: "no phase (total only)"
        case .cache: "local cache"
        case .noResponse: "no response (timed out or failed)"
        default: WaterfallPhase.allCases[rawValue].title
        }
    }
}

/// A piece of a bar in absolute time.
struct BarPiece {
    var style: BarStyle
    var startUs: Micros
    var endUs: Micros
}

extension WaterfallRequest {
    /// The pieces drawn for the whole request: every transaction's phases, or one total-only piece.
    var barPieces: [BarPiece] {
        var pieces = transactions.flatMap(\.barPieces)
        if !pieces.isEmpty {
            // Time the phases don't account for (no response before a timeout, a duration longer
            // than the metrics) is drawn as total-only, so a 30 s timeout doesn't look like 30 ms.
            if let last = pieces.map(\.endUs).max(), let end = endUs, end > last {
                let silent = statusCode == nil && NetworkRecord.endedWithoutResponse(state: state)
                pieces.append(BarPiece(style: silent ? .noResponse : .totalOnly, startUs: last, endUs: end))
            }
            return pieces
        }
        guard let s = startUs, let e = endUs else { return [] }
        let cache = !transactions.isEmpty && transactions.allSatisfy(\.isCacheHit)
        return [BarPiece(style: cache ? .cache : .totalOnly, startUs: s, endUs: e)]
    }
}

extension WaterfallTransaction {
    var barPieces: [BarPiece] {
        let segs = segments
        if segs.isEmpty, let s = startUs, let e = endUs, e >= s {
            return [BarPiece(style: isCacheHit ? .cache : .totalOnly, startUs: s, endUs: e)]
        }
        return segs.map { BarPiece(style: BarStyle($0.phase), startUs: $0.startUs, endUs: $0.endUs) }
    }

    /// `↳ 302 /path` for a sub-row.
    var subTitle: String {
        let status = statusCode.map(String.init) ?? "—"
        var where_ = ""
        if let u = url { where_ = WaterfallURL.parts(u).map { $0.path } ?? u }
        let cache = isCacheHit ? " (cache)" : ""
        return "↳ \(status) \(where_)\(cache)"
    }
}

extension WaterfallRender {
    /// Paints `pieces` onto `width` cells spanning `axis`: each cell shows the piece that covers most
    /// of it, so a short phase never hides a long one, and a piece shorter than a cell still shows.
    static func cells(_ pieces: [BarPiece], axis: (start: Micros, end: Micros), width: Int) -> [BarStyle?] {
        var out = [BarStyle?](repeating: nil, count: max(0, width))
        guard width > 0 else { return out }
        var cover = [Double](repeating: 0, count: width)
        let span = Double(max(1, axis.end - axis.start))
        for p in pieces {
            let a = Double(p.startUs - axis.start) / span * Double(width)
            let b = Double(p.endUs - axis.start) / span * Double(width)
            guard a.isFinite, b.isFinite else { continue }
            var c0 = Int(max(-1, min(Double(width), a)).rounded(.down))
            var c1 = Int(max(-1, min(Double(width), b)).rounded(.up)) - 1
            c0 = min(max(0, c0), width - 1)
            c1 = min(max(c0, c1), width - 1)
            for i in c0...c1 {
                let overlap = max(1e-9, min(b, Double(i + 1)) - max(a, Double(i)))
                if overlap > cover[i] {
                    cover[i] = overlap
                    out[i] = p.style
                }
            }
        }
        return out
    }

    /// The cells as text: glyphs, or coloured blocks with `color` (built as bytes: one row per request
    /// adds up on a large export).
    static func barText(_ cells: [BarStyle?], color: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(color ? cells.count * 4 + 64 : cells.count)
        var current: BarStyle?? = .some(nil)
        for c in cells {
            if color {
                if current != .some(c) {
                    out += [0x1B, 0x5B]
                    out += Array((c?.sgr ?? "0").utf8)
                    out.append(0x6D)
                    current = .some(c)
                }
                if c == nil { out.append(0x20) } else { out += [0xE2, 0x96, 0x88] } // █
            } else {
                out.append(c.map { $0.glyph.asciiValue ?? 0x3F } ?? 0x20)
            }
        }
        if color && current != .some(nil) { out += [0x1B, 0x5B, 0x30, 0x6D] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The legend line.
    static func legend(color: Bool) -> String {
        BarStyle.allCases.map { st in
            (color ? "\u{1B}[\(st.sgr)m█\u{1B}[0m" : String(st.glyph)) + " " + st.name
        }.joined(separator: "  ")
    }

    /// Terminal text: per session a header, one row per request with a width-aware bar (sub-rows
    /// for redirects and retries), a legend, then the summaries and the findings. Colour (ANSI) only
    /// when `color` is true; every string from the export goes through `Escape.terminal`.
    public static func text(_ report: WaterfallReport, columns: Int = 100, color: Bool = false) -> String {
        var all = ""
        text(report, columns: columns, color: color) { all += $0 }
        return all
    }

    /// `text`, handed to `emit` in pieces of about 64 KiB as it is made: an export of many sessions is
    /// never held as one text.
    public static func text(_ report: WaterfallReport, columns: Int = 100, color: Bool = false, into emit: (String) -> Void) {
        let cols = max(40, min(columns, 1000))
        let t: (String) -> String = { Escape.terminal($0) }
        let d = Human.duration(ms:)
        var out = ""
        let s = report.summary
        out +=
            "waterfall: \(report.sessions.count) session\(report.sessions.count == 1 ? "" : "s"), \(s.requestCount) request\(s.requestCount == 1 ? "" : "s"), \(s.transactionCount) transaction\(s.transactionCount == 1 ? "" : "s")"
            + (report.isLimited ? " listed; more were read and checked but not listed (waterfall.limit)" : "") + "\n"

        let seqW = 6, statusW = 6, startW = 9, timeW = 9
        let labelW = min(48, max(16, cols * 3 / 10))
        let barW = max(10, cols - seqW - 1 - labelW - statusW - startW - timeW - 4)

        for (si, session) in report.sessions.enumerated() {
            let tl = s.timelines[si]
            out += "\n"
            var head = "session \(t(session.sessionId ?? "(unknown)"))"
            if let l = session.launchedAt { head += " · launched \(Timestamp.format(l))" }
            out += head + "\n"
            var facts = "  \(tl.requestCount) request\(tl.requestCount == 1 ? "" : "s")"
            if let e = tl.endOffsetMs { facts += " · last ends \(d(e)) after \(originName(tl.originSource))" }
            facts += " · busy \(d(tl.busyMs)) · max concurrency \(tl.maxConcurrency)"
            if let at = tl.maxConcurrencyAtMs, tl.maxConcurrency > 1 { facts += " at \(d(at))" }
            facts +=
                tl.idleGapCount == 0
                ? " · no idle gap ≥ \(d(WaterfallSummary.Options().idleGapMs))"
                : " · \(tl.idleGapCount) idle gap\(tl.idleGapCount == 1 ? "" : "s") ≥ \(d(WaterfallSummary.Options().idleGapMs))"
            out += facts + "\n"
            guard let axis = WaterfallReport.axis(session) else {
                out += "  (no request with a known start)\n"
                if out.utf8.count >= chunkBytes {
                    emit(out)
                    out = ""
                }
                continue
            }
            let spanLabel = d(Double(axis.end - axis.start) / 1000)
            let axisHead = "0" + String(repeating: " ", count: max(1, barW - 1 - spanLabel.count)) + spanLabel
            out +=
                WaterfallFormat.pad("seq", seqW, right: true) + " " + WaterfallFormat.pad("request", labelW)
                + WaterfallFormat.pad("status", statusW, right: true) + WaterfallFormat.pad("start", startW, right: true)
                + WaterfallFormat.pad("time", timeW, right: true) + "  " + axisHead + "\n"
            for index in session.timelineOrder {
                let r = session.requests[index]
                let seq = r.seq.map(String.init) ?? "?"
                let status =
                    r.statusCode.map(String.init)
                    ?? (r.state == "pending" ? "…" : r.state == "failure" ? "fail" : r.state == "cancelled" ? "cancel" : "—")
                let start = r.offsetMs.map { "+" + d($0) } ?? "?"
                out += WaterfallFormat.pad(seq, seqW, right: true)
                out += " "
                out += WaterfallFormat.pad(WaterfallFormat.fitMiddle(t(r.shortTitle), labelW - 1), labelW)
                out += WaterfallFormat.column(status, statusW)
                out += WaterfallFormat.column(start, startW)
                out += WaterfallFormat.column(r.knownElapsedMs.map(d) ?? "?", timeW)
                out += " |"
                out += barText(cells(r.barPieces, axis: axis, width: barW), color: color)
                out += "|\n"
                if r.transactions.count > 1 {
                    for tx in r.transactions {
                        let txStart = tx.offsetMs.map { "+" + d($0) } ?? "?"
                        out +=
                            String(repeating: " ", count: seqW + 1)
                            + WaterfallFormat.pad(WaterfallFormat.fitMiddle("  " + t(tx.subTitle), labelW - 1), labelW)
                            + String(repeating: " ", count: statusW) + WaterfallFormat.column(txStart, startW)
                            + WaterfallFormat.column(tx.totalMs.map(d) ?? "?", timeW) + " |"
                            + barText(cells(tx.barPieces, axis: axis, width: barW), color: color) + "|\n"
                    }
                }
            }
            if !tl.idleGaps.isEmpty {
                out += "  idle: " + tl.idleGaps.map { "\(d($0.durationMs)) from +\(d($0.startOffsetMs))" }.joined(separator: ", ")
                if tl.idleGapCount > tl.idleGaps.count { out += " (and \(tl.idleGapCount - tl.idleGaps.count) shorter)" }
                out += "\n"
            }
            if out.utf8.count >= chunkBytes {
                emit(out)
                out = ""
            }
        }
        out += "\nlegend: " + legend(color: color) + "\n"

        if !s.slowest.isEmpty {
            out += "\nslowest requests\n"
            for x in s.slowest {
                out +=
                    "  " + WaterfallFormat.pad(d(x.elapsedMs), 8, right: true) + "  seq "
                    + WaterfallFormat.pad(x.seq.map(String.init) ?? "?", 5) + " "
                    + WaterfallFormat.fit(t(x.title), max(20, cols - 24)) + "\n"
                out += "            " + t(x.explanation) + "\n"
            }
        }
        if s.transactionCount > 0 {
            out += "\ntime per phase (all transactions)\n"
            let total = s.phases.reduce(0) { $0 + $1.totalMs }
            for p in s.phases {
                let pct = total > 0 ? String(format: "%5.1f%%", p.totalMs / total * 100) : "    —"
                out +=
                    "  " + WaterfallFormat.pad(p.phase.title, 9) + WaterfallFormat.pad(d(p.totalMs), 10, right: true)
                    + "  " + pct + "  in \(p.count) transaction\(p.count == 1 ? "" : "s")"
                    + (p.count > 0 ? ", max \(d(p.maxMs))" : "") + "\n"
            }
        }
        if !s.endpoints.isEmpty {
            out +=
                "\nendpoints" + WaterfallFormat.pad("count", 7, right: true) + WaterfallFormat.pad("p50", 10, right: true)
                + WaterfallFormat.pad("p95", 10, right: true) + WaterfallFormat.pad("max", 10, right: true) + "\n"
            for e in s.endpoints.prefix(20) {
                out +=
                    "  " + WaterfallFormat.pad(String(e.count), 14, right: true) + WaterfallFormat.pad(d(e.p50Ms), 10, right: true)
                    + WaterfallFormat.pad(d(e.p95Ms), 10, right: true) + WaterfallFormat.pad(d(e.maxMs), 10, right: true)
                    + "  " + WaterfallFormat.fit(t(e.key), max(20, cols - 48)) + "\n"
            }
            let more = s.endpoints.count - min(20, s.endpoints.count) + s.endpointsOmitted
            if more > 0 { out += "  (\(more) more endpoints)\n" }
        }
        if !report.findings.isEmpty {
            out += "\nfindings\n"
            for f in report.findings {
                var at = ""
                if let seq = f.seq { at += "seq \(seq) " }
                if let rid = f.recordId { at += t(rid) + " " }
                out +=
                    "  " + WaterfallFormat.pad(f.severity.rawValue, 7) + WaterfallFormat.pad(f.rule, 28) + " " + at
                    + t(f.message) + "\n"
                if out.utf8.count >= chunkBytes {
                    emit(out)
                    out = ""
                }
            }
        }
        emit(out)
    }

    /// Text handed to the sink at a time by the streamed renderers.
    static let chunkBytes = 64 << 10

    static func originName(_ source: String) -> String {
        switch source {
        case "launchedAt": "launch"
        case "firstRecord": "the first record"
        case "firstRequest": "the first request"
        default: "the start"
        }
    }
}

extension WaterfallRender {
    /// `waterfall --follow`: each request of `report` (one network record, as it arrived) on one row,
    /// its bar drawn on its own span, its transactions below it when there are several; the header
    /// of the columns first when `header`.
    public static func followRows(_ report: WaterfallReport, columns: Int = 100, color: Bool = false, header: Bool) -> String {
        let cols = max(40, min(columns, 1000))
        let t: (String) -> String = { Escape.terminal($0) }
        let d = Human.duration(ms:)
        let seqW = 6, statusW = 6, startW = 9, timeW = 9
        let labelW = min(48, max(16, cols * 3 / 10))
        let barW = max(10, cols - seqW - 1 - labelW - statusW - startW - timeW - 4)
        var out = ""
        if header {
            out +=
                WaterfallFormat.pad("seq", seqW, right: true) + " " + WaterfallFormat.pad("request", labelW)
                + WaterfallFormat.pad("status", statusW, right: true) + WaterfallFormat.pad("start", startW, right: true)
                + WaterfallFormat.pad("time", timeW, right: true) + "  each bar is its request's own span\n"
        }
        for session in report.sessions {
            for r in session.requests {
                let status =
                    r.statusCode.map(String.init)
                    ?? (r.state == "pending" ? "…" : r.state == "failure" ? "fail" : r.state == "cancelled" ? "cancel" : "—")
                let axis: (start: Micros, end: Micros)? = r.startUs.map { s in (s, max(r.endUs ?? s, s + 1)) }
                out += WaterfallFormat.pad(r.seq.map(String.init) ?? "?", seqW, right: true) + " "
                out += WaterfallFormat.pad(WaterfallFormat.fitMiddle(t(r.shortTitle), labelW - 1), labelW)
                out += WaterfallFormat.column(status, statusW)
                out += WaterfallFormat.column(r.offsetMs.map { "+" + d($0) } ?? "?", startW)
                out += WaterfallFormat.column(r.knownElapsedMs.map(d) ?? "?", timeW)
                out +=
                    " |"
                    + (axis.map { barText(cells(r.barPieces, axis: $0, width: barW), color: color) } ?? String(repeating: " ", count: barW))
                out += "|\n"
                guard r.transactions.count > 1, let axis else { continue }
                for tx in r.transactions {
                    out +=
                        String(repeating: " ", count: seqW + 1)
                        + WaterfallFormat.pad(WaterfallFormat.fitMiddle("  " + t(tx.subTitle), labelW - 1), labelW)
                        + String(repeating: " ", count: statusW) + WaterfallFormat.column(tx.offsetMs.map { "+" + d($0) } ?? "?", startW)
                        + WaterfallFormat.column(tx.totalMs.map(d) ?? "?", timeW) + " |"
                        + barText(cells(tx.barPieces, axis: axis, width: barW), color: color) + "|\n"
                }
            }
        }
        return out
    }

    /// `waterfall --follow --json`: each request of `report` as one line of JSON (the objects of
    /// `--format json`'s `requests`).
    public static func followLines(_ report: WaterfallReport) -> String {
        let writer = RequestJSONWriter(pretty: false, indent: 0)
        var out = ""
        for session in report.sessions {
            for r in session.requests { out += String(decoding: writer.bytes(r), as: UTF8.self) + "\n" }
        }
        return out
    }
}
