import Foundation
import SiftCore
import SiftWaterfall

/// `pbsift show` as text, Markdown and JSON. The report's texts are already masked; here they are
/// only escaped for the medium.
extension ShowReport {
    /// Cells of the timing bar (fixed, so output does not depend on the terminal).
    static let barWidth = 50

    /// The glyph of a phase in text bars (as `waterfall` draws them).
    static func glyph(_ p: WaterfallPhase) -> Character {
        switch p {
        case .blocked: "-"
        case .dns: "d"
        case .tcp: "t"
        case .tls: "s"
        case .request: "^"
        case .waiting: "="
        case .download: "#"
        }
    }

    /// A bar of `barWidth` cells with the phase drawn where it lies on the request's axis.
    func bar(_ p: Phase, glyph: Character? = nil) -> String {
        let w = ShowReport.barWidth
        var cells = [Character](repeating: " ", count: w)
        guard spanMs > 0, p.startMs.isFinite, p.ms.isFinite else { return String(cells) }
        let a = min(w - 1, max(0, Int((p.startMs / spanMs * Double(w)).rounded(.down))))
        let b = min(w, max(a + 1, Int(((p.startMs + p.ms) / spanMs * Double(w)).rounded())))
        for i in a..<b { cells[i] = glyph ?? ShowReport.glyph(p.phase) }
        return String(cells)
    }

    func ms(_ v: Double?) -> String { v.map { Human.duration(ms: $0) } ?? "?" }

    /// `+1.2 s` from the request's start.
    func at(_ v: Double?) -> String { v.map { "+" + Human.duration(ms: $0) } ?? "?" }

    var identity: [String] {
        var ids: [String] = []
        if let s = seq { ids.append("seq \(s)") }
        if let r = recordId { ids.append(r) }
        if let q = requestId { ids.append(q) }
        if let e = echoedRequestId, e != requestId { ids.append("echoed as \(e)") }
        return ids
    }

    var statusLine: String {
        var parts: [String] = []
        parts.append("status " + (statusCode.map(String.init) ?? "none"))
        parts.append("state " + (state ?? "?"))
        if let e = error { parts.append("error: " + e) }
        return parts.joined(separator: " · ")
    }

    var kindLine: String {
        [source, kind, category, label].compactMap { $0 }.joined(separator: " · ")
    }

    /// When it started and ended: a record's `ts` is when it was written, at the request's end.
    var whenLine: String {
        var s: String
        if let ts, let d = durationMs, d.isFinite, d >= 0 {
            s = "from " + Timestamp.format(ts - d / 1000) + " to " + Timestamp.format(ts) + ", took " + Human.duration(ms: d)
        } else {
            s = "at " + (ts.map { Timestamp.format($0) } ?? "?")
            if let d = durationMs { s += ", took " + Human.duration(ms: d) }
        }
        if let v = httpVersion { s += ", " + v }
        return s
    }

    var serverHeading: String {
        guard let s = server else { return "" }
        var t =
            "\(s.lines.count) server line\(s.lines.count == 1 ? "" : "s") (\(s.status)\(s.joinedBy.map { " by \($0): the log carries no id" } ?? ""))"
        if let k = s.skewSeconds {
            t += "; times on the device clock: \(ShowReport.skewWords(k)) (from \(s.skewSamples) sample\(s.skewSamples == 1 ? "" : "s"))"
        } else {
            t += "; no clock skew known: server times as logged"
        }
        return t
    }

    // MARK: text

    func text(colors: Colors) -> String {
        func t(_ s: String) -> String { Escape.terminal(s) }
        var o = colors.bold(t(requestLine)) + " " + (failed ? colors.red(outcome) : colors.green(outcome)) + "\n"
        if !identity.isEmpty { o += "  " + t(identity.joined(separator: " · ")) + "\n" }
        o += "  session \(t(sessionId ?? "unknown")) (user \(t(user))) · \(t(input)) · \(t(file)):\(line)\n"
        o += "  " + t(statusLine) + "\n"
        if !kindLine.isEmpty { o += "  " + t(kindLine) + "\n" }
        o += "  " + t(whenLine) + "\n\n"
        o += colors.bold("Verdict: ") + (failed ? colors.red(t(verdict)) : colors.yellow(t(verdict))) + "\n\n"

        func headers(_ title: String, _ hs: [Header]?) {
            guard let hs else { o += colors.bold(title) + ": none (no response)\n"; return }
            o += colors.bold(title) + (hs.isEmpty ? ": none\n" : "\n")
            for h in hs { o += "  \(t(h.name)): \(t(h.value))\n" }
        }
        func body(_ title: String, _ b: Body?) {
            o += colors.bold(title) + ": " + t(b?.summary ?? "not recorded") + "\n"
            if let text = b?.text {
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) { o += "  " + t(String(line)) + "\n" }
                if let b, b.omittedBytes > 0 { o += colors.dim("  … \(Human.bytes(b.omittedBytes)) more (--body full)") + "\n" }
            } else if let why = b?.notShown, b?.size ?? 0 > 0 {
                o += colors.dim("  (content not shown: \(t(why)))") + "\n"
            }
        }
        headers("Request headers", requestHeaders)
        body("Request body", requestBody)
        headers("Response headers", responseHeaders)
        body("Response body", responseBody)
        o += "\n"

        o +=
            colors.bold("Timing")
            + " (0 to \(ms(spanMs)) from the request's start; one cell is \(ms(spanMs / Double(ShowReport.barWidth))))\n"
        if transactions.isEmpty { o += "  no transactions: only the total is known\n" }
        for tx in transactions {
            var head = "  #\(tx.index + 1) \(at(tx.offsetMs)) \(ms(tx.totalMs))"
            if let c = tx.statusCode { head += " → \(c)" }
            if !tx.notes.isEmpty { head += " · " + tx.notes.joined(separator: " · ") }
            o += t(head) + "\n"
            if let u = tx.url, u != url { o += "     " + t(u) + "\n" }
            for p in tx.phases {
                let name = WaterfallFormat.pad(p.phase.title, 9)
                let d = WaterfallFormat.pad(ms(p.ms), 9, right: true)
                let a = WaterfallFormat.pad(at(p.startMs), 10, right: true)
                o += "     \(name)\(d) \(a)  |\(bar(p))|\n"
            }
            if tx.phases.isEmpty { o += "     no phase could be rebuilt\n" }
            for x in tx.anomalies { o += "     clock: " + t(x) + "\n" }
        }
        if let p = noResponse {
            let d = WaterfallFormat.pad(ms(p.ms), 9, right: true)
            let a = WaterfallFormat.pad(at(p.startMs), 10, right: true)
            o += "  no response \(d) \(a)  |\(bar(p, glyph: "x"))|\n"
        }
        if droppedTransactions > 0 { o += "  \(droppedTransactions) more transactions not kept\n" }
        o += "\n"

        if let s = server {
            o += colors.bold("Server") + ": " + t(serverHeading) + "\n"
            for l in s.lines {
                o +=
                    "  \(l.deviceTs.map { Timestamp.format($0, wholeSecond: l.wholeSecond) } ?? "—")  \(t(l.file)):\(l.line)  \(t(l.text))\n"
            }
            o += "\n"
        }

        o += colors.bold("Around it") + " (device clock)\n"
        for e in around {
            let when = e.time ?? "—"
            let side = WaterfallFormat.pad(e.side + (e.isRequest ? " ▶" : ""), 8)
            let line = "  \(WaterfallFormat.pad(when, 24))  \(side)  \(t(e.text))"
            o += (e.isRequest ? colors.bold(line) : line) + "\n"
        }
        return o
    }

    // MARK: markdown

    func markdown() -> String {
        func m(_ s: String) -> String { Escape.markdown(s) }
        var o = "# \(m(requestLine)) \(m(outcome))\n\n"
        if !identity.isEmpty { o += "- " + identity.map { "`\($0)`" }.joined(separator: " · ") + "\n" }
        o += "- session `\(sessionId ?? "unknown")` (user \(m(user))), \(m(input)), `\(file)`:\(line)\n"
        o += "- " + m(statusLine) + "\n"
        if !kindLine.isEmpty { o += "- " + m(kindLine) + "\n" }
        o += "- " + m(whenLine) + "\n\n"
        o += "**Verdict:** " + m(verdict) + "\n\n"

        func headers(_ title: String, _ hs: [Header]?) {
            o += "## \(title)\n\n"
            guard let hs else { o += "None (no response).\n\n"; return }
            if hs.isEmpty { o += "None.\n\n"; return }
            o += ReportEnvelope.markdownTable(["name", "value"], hs.map { [m($0.name), m($0.value)] }) + "\n"
        }
        func body(_ title: String, _ b: Body?) {
            o += "\(title): " + m(b?.summary ?? "not recorded") + "\n\n"
            if let text = b?.text {
                // A fence longer than any run of backticks inside, so the body cannot close it.
                var longest = 0, run = 0
                for c in text { run = c == "`" ? run + 1 : 0; longest = max(longest, run) }
                let fence = String(repeating: "`", count: max(3, longest + 1))
                let lang = text.hasPrefix("{") || text.hasPrefix("[") ? "json" : ""
                o += fence + lang + "\n" + text + "\n" + fence + "\n\n"
                if let b, b.omittedBytes > 0 { o += "_… \(Human.bytes(b.omittedBytes)) more (`--body full`)._\n\n" }
            } else if let why = b?.notShown, b?.size ?? 0 > 0 {
                o += "_Content not shown: \(m(why))._\n\n"
            }
        }
        headers("Request headers", requestHeaders)
        body("Request body", requestBody)
        headers("Response headers", responseHeaders)
        body("Response body", responseBody)

        o += "## Timing\n\n0 to \(ms(spanMs)) from the request's start.\n\n"
        if transactions.isEmpty { o += "No transactions: only the total is known.\n\n" }
        for tx in transactions {
            var head = "Transaction \(tx.index + 1): \(at(tx.offsetMs)), \(ms(tx.totalMs))"
            if let c = tx.statusCode { head += " → \(c)" }
            o += "### " + m(head) + "\n\n"
            if !tx.notes.isEmpty { o += m(tx.notes.joined(separator: " · ")) + "\n\n" }
            if let u = tx.url, u != url { o += m(u) + "\n\n" }
            let rows = tx.phases.map { p in [p.phase.title, ms(p.ms), at(p.startMs), "`" + bar(p) + "`"] }
            if !rows.isEmpty { o += ReportEnvelope.markdownTable(["phase", "duration", "starts", "on the request's axis"], rows) + "\n" }
            for x in tx.anomalies { o += "- clock: " + m(x) + "\n" }
            if !tx.anomalies.isEmpty { o += "\n" }
        }
        if let p = noResponse {
            o += "No response: \(ms(p.ms)) from \(at(p.startMs)) `\(bar(p, glyph: "x"))`\n\n"
        }
        if droppedTransactions > 0 { o += "_\(droppedTransactions) more transactions not kept._\n\n" }

        if let s = server {
            o += "## Server\n\n" + m(serverHeading) + "\n\n"
            if !s.lines.isEmpty {
                let rows = s.lines.map { l in
                    [l.deviceTs.map { Timestamp.format($0, wholeSecond: l.wholeSecond) } ?? "—", m("\(l.file):\(l.line)"), m(l.text)]
                }
                o += ReportEnvelope.markdownTable(["device time", "line", "what"], rows) + "\n"
            }
        }

        o += "## Around it\n\n"
        let rows = around.map { e in
            [e.time ?? "—", e.side + (e.isRequest ? " ▶" : ""), e.isRequest ? "**\(m(e.text))**" : m(e.text)]
        }
        o += ReportEnvelope.markdownTable(["device time", "side", "what"], rows)
        return o
    }

    // MARK: JSON

    func jsonValue() -> JSONOut {
        func headers(_ hs: [Header]?) -> JSONOut {
            guard let hs else { return .null }
            return .array(hs.map { .object(["name": .string($0.name), "value": .string($0.value)]) })
        }
        func body(_ b: Body?) -> JSONOut {
            guard let b else { return .null }
            return .object([
                "size": .opt(b.size), "contentType": .opt(b.contentType), "encoding": .opt(b.encoding),
                "blob": .opt(b.blob), "storedSize": .opt(b.storedSize), "truncated": .bool(b.truncated),
                "summary": .string(b.summary), "text": .opt(b.text), "omittedBytes": .int(b.omittedBytes),
                "notShown": .opt(b.notShown)
            ])
        }
        let txs: [JSONOut] = transactions.map { tx in
            .object([
                "index": .int(tx.index), "url": .opt(tx.url), "statusCode": .opt(tx.statusCode),
                "offsetMs": .opt(tx.offsetMs), "totalMs": .opt(tx.totalMs),
                "notes": .array(tx.notes.map { .string($0) }), "anomalies": .array(tx.anomalies.map { .string($0) }),
                "phases": .array(
                    tx.phases.map { p in
                        .object(["phase": .string(p.phase.rawValue), "startMs": .double(p.startMs), "durationMs": .double(p.ms)])
                    })
            ])
        }
        var serverJSON: JSONOut = .null
        if let s = server {
            serverJSON = .object([
                "status": .string(s.status), "joinedBy": .opt(s.joinedBy), "clockSkewSeconds": .opt(s.skewSeconds),
                "clockSkewSamples": .int(s.skewSamples),
                "clockSkew": .opt(s.skewSeconds.map(ShowReport.skewWords)),
                "serverMs": .opt(s.serverMs), "networkMs": .opt(s.networkMs), "logFiles": .int(s.logFiles),
                "lines": .array(
                    s.lines.map { l in
                        .object([
                            "deviceTs": .opt(l.deviceTs.map { Timestamp.format($0, wholeSecond: l.wholeSecond) }),
                            "serverTs": .opt(l.serverTs.map { Timestamp.format($0) }),
                            "file": .string(l.file), "line": .int(l.line), "text": .string(l.text)
                        ])
                    })
            ])
        }
        return .object([
            "tool": .object(["name": .string("pbsift"), "version": .string(PBSift.version)]),
            "input": .string(input), "file": .string(file), "line": .int(line),
            "sessionId": .opt(sessionId), "user": .string(user),
            "seq": .opt(seq), "recordId": .opt(recordId), "requestId": .opt(requestId), "echoedRequestId": .opt(echoedRequestId),
            "method": .opt(method), "url": .opt(url), "statusCode": .opt(statusCode), "state": .opt(state), "error": .opt(error),
            "source": .opt(source), "kind": .opt(kind), "category": .opt(category), "label": .opt(label),
            "ts": .opt(ts.map { Timestamp.format($0) }), "durationMs": .opt(durationMs), "spanMs": .double(spanMs),
            "httpVersion": .opt(httpVersion),
            "request": .object(["headers": headers(requestHeaders), "body": body(requestBody)]),
            "response": responseHeaders == nil && responseBody == nil
                ? .null
                : .object(["headers": headers(responseHeaders), "body": body(responseBody)]),
            "transactions": .array(txs), "droppedTransactions": .int(droppedTransactions),
            "noResponse": noResponse.map { .object(["startMs": .double($0.startMs), "ms": .double($0.ms)]) } ?? .null,
            "verdict": .string(verdict),
            "server": serverJSON,
            "around": .array(
                around.map { e in
                    .object([
                        "ts": .opt(e.time), "side": .string(e.side), "isRequest": .bool(e.isRequest),
                        "text": .string(e.text)
                    ])
                })
        ])
    }

    func json() -> String { jsonValue().render(pretty: true) + "\n" }
}
