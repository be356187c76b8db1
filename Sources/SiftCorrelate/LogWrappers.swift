import Foundation
import SiftCore

/// What wraps an application's log line on its way to a file: a container runtime, an orchestrator's
/// CLI, syslog framing, journald. Each wrapper is peeled before a format is chosen, so the app's own
/// line is read as its format says; the wrapper's time is kept as the line's time when the app line
/// has none. Wrappers nest (CRI around Docker's JSON around pino): peeling repeats.
public enum LogWrapper: String, Sendable, CaseIterable {
    /// Docker's json-file driver: `{"log":"<line>\n","stream":"stdout","time":"…"}`.
    case dockerJSON = "docker-json"
    /// CRI (containerd, CRI-O; Kubernetes' `/var/log/containers`): `<RFC 3339 time> stdout F <line>`.
    case cri
    /// journald's JSON export (`journalctl -o json`): `MESSAGE`, `__REALTIME_TIMESTAMP` in µs.
    case journald
    /// RFC 5424 syslog (a Heroku drain, rsyslog forwarding), octet-counted or not:
    /// `[<len> ]<PRI>1 <time> <host> <app> <procid> <msgid> <structured data> <line>`.
    case syslog5424 = "syslog-rfc5424"
    /// `docker compose logs`: `<service>-1  | <line>`.
    case compose
    /// A time before a JSON line (`kubectl logs --timestamps`, `aws logs tail`, `<time> <stream> {…}`).
    case timePrefix = "time-prefix"
    /// BSD syslog (RFC 3164; rsyslog's file format, HAProxy through syslog):
    /// `[<PRI>]Nov 29 12:55:03 <host> <tag>[<pid>]: <line>`.
    case syslog3164 = "syslog-rfc3164"
    /// gunicorn's and hypercorn's logger prefix: `[2026-11-29 12:55:03 +0000] [812] [INFO] <line>`.
    case pythonServer = "gunicorn-prefix"
    /// Syslog written to a file with an RFC 3339 time (rsyslog's `RSYSLOG_FileFormat`, syslog-ng's
    /// ISO dates, `journalctl -o short-iso`): `2026-11-29T12:55:03.748+00:00 <host> <tag>[<pid>]: <line>`.
    case syslogISO = "syslog-iso"

    /// The most wrappers peeled from one line.
    static let maxDepth = 4

    /// `line` with every wrapper peeled: the app's line, the wrappers met (outermost first), and the
    /// time the outermost wrapper that carries one gives (seconds since 1970).
    public static func peel(_ line: [UInt8]) -> (inner: [UInt8], wrappers: [LogWrapper], ts: Double?) {
        var current = withoutColour(line)
        var wrappers: [LogWrapper] = []
        var ts: Double?
        while wrappers.count < maxDepth, let (kind, inner, t) = peelOne(current) {
            wrappers.append(kind)
            if ts == nil { ts = t }
            // Colour a wrapper carried escaped (Docker's `\u001b[31m`) is there once unwrapped.
            current = withoutColour(inner)
        }
        return (current, wrappers, ts)
    }

    /// The line without terminal colour and cursor codes (`ESC [ … m`, any CSI sequence, and OSC
    /// sequences ended by BEL or `ESC \`): Werkzeug, uvicorn and colourising loggers write them around
    /// the request line or the level.
    static func withoutColour(_ b: [UInt8]) -> [UInt8] {
        guard b.contains(0x1B) else { return b }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            guard b[i] == 0x1B, i + 1 < b.count else {
                out.append(b[i])
                i += 1
                continue
            }
            if b[i + 1] == UInt8(ascii: "[") {
                // CSI: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
                var k = i + 2
                while k < b.count && b[k] >= 0x20 && b[k] <= 0x3F { k += 1 }
                i = k < b.count && b[k] >= 0x40 && b[k] <= 0x7E ? k + 1 : k
            } else if b[i + 1] == UInt8(ascii: "]") {
                // OSC: to BEL or ST (`ESC \`).
                var k = i + 2
                while k < b.count && b[k] != 0x07 && !(b[k] == 0x1B && k + 1 < b.count && b[k + 1] == UInt8(ascii: "\\")) { k += 1 }
                i = k < b.count ? (b[k] == 0x07 ? k + 1 : k + 2) : k
            } else {
                i += 2
            }
        }
        return out
    }

    static func peelOne(_ b: [UInt8]) -> (LogWrapper, [UInt8], Double?)? {
        guard let first = b.first else { return nil }
        if first == UInt8(ascii: "{") { return json(b) }
        if first == UInt8(ascii: "<") || (first >= 0x30 && first <= 0x39 && hasSyslogAfterCount(b)) {
            if let s = syslog(b) { return s }
        }
        if let s = bsdSyslog(b) { return s }
        if first == UInt8(ascii: "["), let p = pythonServer(b) { return p }
        // CRI and a time before JSON both start with a time: it is read once.
        if let lead = leadingTime(b) {
            if let c = cri(b, after: lead) { return c }
            if let t = timePrefixed(b, after: lead) { return t }
            var i = lead.next
            if let rest = afterHostAndTag(b, &i, pidTagged: true) { return (.syslogISO, rest, lead.ts) }
        }
        return compose(b)
    }

    /// Docker's json-file record or a journald export: the line is a member of a JSON object.
    static func json(_ b: [UInt8]) -> (LogWrapper, [UInt8], Double?)? {
        // A cheap look first: most JSON lines are the app's own.
        let head = b.prefix(4096)
        let hasLog = contains(head, "\"log\"")
        let hasMessage = contains(head, "\"MESSAGE\"")
        guard hasLog || hasMessage, let doc = try? JSONDocument(bytes: b, maxDepth: 16), doc.root.isObject else { return nil }
        let root = doc.root
        if hasLog, let log = root["log"]?.string, let stream = root["stream"]?.string, stream == "stdout" || stream == "stderr" {
            var inner = Array(log.utf8)
            while let last = inner.last, last == 0x0A || last == 0x0D { inner.removeLast() }
            let ts = root["time"]?.string.flatMap { LogTime.parseZoned($0)?.0 }
            return (.dockerJSON, inner, ts)
        }
        if hasMessage, let message = root["MESSAGE"]?.string, root["__REALTIME_TIMESTAMP"] != nil || root["_HOSTNAME"] != nil {
            var ts: Double?
            if let us = root["__REALTIME_TIMESTAMP"]?.string.flatMap(Double.init) ?? root["__REALTIME_TIMESTAMP"]?.double,
                us.isFinite, us > 0, us < 253_402_300_800e6
            {
                ts = us / 1e6
            }
            return (.journald, Array(message.utf8), ts)
        }
        return nil
    }

    /// `2026-11-29T12:55:03.748123456Z stdout F <line>` (F: a full line; P: part of one).
    static func cri(_ b: [UInt8], after lead: (ts: Double, next: Int)) -> (LogWrapper, [UInt8], Double?)? {
        let ts = lead.ts
        var i = lead.next
        guard let stream = word(b, &i), stream == "stdout" || stream == "stderr", let tag = word(b, &i), tag == "F" || tag == "P"
        else { return nil }
        return (.cri, Array(b[min(i, b.count)...]), ts)
    }

    /// A time, then (optionally one word, a log stream's name) a JSON object or a server's access line
    /// that carries its own time where its format places one (`kubectl logs --timestamps` around nginx):
    /// that is the line.
    static func timePrefixed(_ b: [UInt8], after lead: (ts: Double, next: Int)) -> (LogWrapper, [UInt8], Double?)? {
        let ts = lead.ts
        var i = lead.next
        if i < b.count, b[i] == UInt8(ascii: "{") || isTimedAccessLine(b[i...]) { return (.timePrefix, Array(b[i...]), ts) }
        guard word(b, &i) != nil, i < b.count, b[i] == UInt8(ascii: "{") || isTimedAccessLine(b[i...]) else { return nil }
        return (.timePrefix, Array(b[i...]), ts)
    }

    /// Whether `rest` has the shape of a text entry of the catalogue that places its time at a token of
    /// its own (the access logs: nginx, Apache, Envoy, HAProxy, the ALB…), so a time before it wraps it.
    static func isTimedAccessLine(_ rest: ArraySlice<UInt8>) -> Bool {
        guard rest.count >= 20, rest.count <= 65536 else { return false }
        let v = LineView(Array(rest), focus: nil)
        return timedTextEntries.contains { LineParser.holds($0, v) }
    }

    static let timedTextEntries: [LogFormatEntry] = LogCatalogue.entries.filter { e in
        !e.json
            && e.clues.contains {
                switch $0 {
                case .timeAt, .isoTimeAt: return true
                default: return false
                }
            }
    }

    /// `api-1  | <line>`: a service's container name (ending in `-N` or `_N`), spaces, `| `.
    static func compose(_ b: [UInt8]) -> (LogWrapper, [UInt8], Double?)? {
        var i = 0
        while i < b.count, i < 128, isNameByte(b[i]) { i += 1 }
        guard i > 0, i < b.count, b[i] == 0x20 else { return nil }
        var d = i
        while d > 0, b[d - 1] >= 0x30, b[d - 1] <= 0x39 { d -= 1 }
        guard d < i, d >= 2, b[d - 1] == UInt8(ascii: "-") || b[d - 1] == UInt8(ascii: "_") else { return nil }
        while i < b.count, b[i] == 0x20 { i += 1 }
        guard i + 1 < b.count, b[i] == UInt8(ascii: "|"), b[i + 1] == 0x20 else { return nil }
        return (.compose, Array(b[(i + 2)...]), nil)
    }

    /// RFC 5424: `<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD MSG`, after an optional octet count.
    static func syslog(_ b: [UInt8]) -> (LogWrapper, [UInt8], Double?)? {
        var i = 0
        if b.first != UInt8(ascii: "<") {
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            guard i < b.count, b[i] == 0x20 else { return nil }
            i += 1
        }
        guard i < b.count, b[i] == UInt8(ascii: "<") else { return nil }
        i += 1
        let priStart = i
        while i < b.count, i - priStart < 3, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
        guard i > priStart, i + 2 < b.count, b[i] == UInt8(ascii: ">"), b[i + 1] == UInt8(ascii: "1"), b[i + 2] == 0x20 else { return nil }
        i += 3
        guard let time = word(b, &i) else { return nil }
        let ts = time == "-" ? nil : LogTime.parseZoned(time)?.0
        // HOST APP PROCID MSGID
        for _ in 0..<4 { guard word(b, &i) != nil else { return nil } }
        // Structured data: `-` or one or more `[…]` elements.
        if i < b.count, b[i] == UInt8(ascii: "-") {
            i += 1
        } else {
            while i < b.count, b[i] == UInt8(ascii: "[") {
                var escaped = false
                i += 1
                while i < b.count {
                    let c = b[i]
                    i += 1
                    if escaped { escaped = false; continue }
                    if c == UInt8(ascii: "\\") { escaped = true; continue }
                    if c == UInt8(ascii: "]") { break }
                }
            }
        }
        while i < b.count, b[i] == 0x20 { i += 1 }
        // A UTF-8 byte order mark may open the message.
        if i + 2 < b.count, b[i] == 0xEF, b[i + 1] == 0xBB, b[i + 2] == 0xBF { i += 3 }
        return (.syslog5424, Array(b[min(i, b.count)...]), ts)
    }

    /// RFC 3164: an optional `<PRI>`, `Mmm dd hh:mm:ss`, a host, a tag ending in `:` (`haproxy[1234]:`).
    static func bsdSyslog(_ b: [UInt8]) -> (LogWrapper, [UInt8], Double?)? {
        var i = 0
        if b.first == UInt8(ascii: "<") {
            i = 1
            while i < b.count, i < 4, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            guard i > 1, i < b.count, b[i] == UInt8(ascii: ">") else { return nil }
            i += 1
        }
        guard b.count - i >= 20, b[i] >= UInt8(ascii: "A"), b[i] <= UInt8(ascii: "Z") else { return nil }
        let parsed = b.withUnsafeBufferPointer { bp in LogTime.syslog(bp.baseAddress! + i, bp.count - i, near: nil) }
        guard let (ts, len) = parsed else { return nil }
        i += len
        guard i < b.count, b[i] == 0x20 else { return nil }
        while i < b.count, b[i] == 0x20 { i += 1 }
        return afterHostAndTag(b, &i, pidTagged: false).map { (.syslog3164, $0, ts) }
    }

    /// After a syslog time: a host, a tag ending in `:`, then the message, which is returned. With
    /// `pidTagged`, the tag must be a program's name with `[<pid>]` and the host no level word, since
    /// an application's own line can also start with a time, a level and `name:` (`INFO handler: …`).
    static func afterHostAndTag(_ b: [UInt8], _ i: inout Int, pidTagged: Bool) -> [UInt8]? {
        guard let host = word(b, &i) else { return nil }
        if pidTagged, LineParser.level(host) != nil { return nil }
        let tagStart = i
        while i < b.count, i - tagStart < 64, b[i] != 0x20, b[i] != UInt8(ascii: ":") { i += 1 }
        guard i > tagStart, i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
        if pidTagged, !isProgramWithPID(b[tagStart..<i]) { return nil }
        i += 1
        while i < b.count, b[i] == 0x20 { i += 1 }
        return Array(b[min(i, b.count)...])
    }

    /// `haproxy[4121]`: a program's name (letters, digits, `_ - . /`) and its process id in brackets.
    static func isProgramWithPID(_ t: ArraySlice<UInt8>) -> Bool {
        guard t.last == UInt8(ascii: "]"), let open = t.firstIndex(of: UInt8(ascii: "[")), open > t.startIndex,
            open < t.endIndex - 2, t[(open + 1)..<(t.endIndex - 1)].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return false }
        return t[t.startIndex..<open].allSatisfy { isNameByte($0) || $0 == UInt8(ascii: "/") }
    }

    /// `[<time with zone>] [<pid>] [<LEVEL>] <line>` (gunicorn, hypercorn).
    static func pythonServer(_ b: [UInt8]) -> (LogWrapper, [UInt8], Double?)? {
        guard let close = b.prefix(48).firstIndex(of: UInt8(ascii: "]")), close > 1,
            let (ts, zoned) = LogTime.parseZoned(String(decoding: b[1..<close], as: UTF8.self)), zoned
        else { return nil }
        var i = close + 1
        for k in 0..<2 {
            guard i + 2 < b.count, b[i] == 0x20, b[i + 1] == UInt8(ascii: "[") else { return nil }
            i += 2
            let s = i
            while i < b.count, i - s < 12, b[i] != UInt8(ascii: "]") { i += 1 }
            guard i > s, i < b.count else { return nil }
            let inner = b[s..<i]
            let ok =
                k == 0
                ? inner.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } : inner.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
            guard ok else { return nil }
            i += 1
        }
        while i < b.count, b[i] == 0x20 { i += 1 }
        return (.pythonServer, Array(b[min(i, b.count)...]), ts)
    }

    static func hasSyslogAfterCount(_ b: [UInt8]) -> Bool {
        var i = 0
        while i < b.count, i < 10, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
        return i > 0 && i + 1 < b.count && b[i] == 0x20 && b[i + 1] == UInt8(ascii: "<")
    }

    /// An RFC 3339 time with a zone at the start of `b`, then a space: the time and where the next word starts.
    static func leadingTime(_ b: [UInt8]) -> (ts: Double, next: Int)? {
        guard b.count >= 20, b[0] >= 0x30, b[0] <= 0x39, b[4] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T") else { return nil }
        var end = 0
        while end < b.count, end < 40, b[end] != 0x20 { end += 1 }
        guard end < b.count, let (t, zoned) = LogTime.parseZoned(String(decoding: b[0..<end], as: UTF8.self)), zoned else { return nil }
        var i = end
        while i < b.count, b[i] == 0x20 { i += 1 }
        return (t, i)
    }

    /// The word at `i` (up to a space), moving `i` past it and the spaces after it.
    static func word(_ b: [UInt8], _ i: inout Int) -> String? {
        let s = i
        while i < b.count, b[i] != 0x20 { i += 1 }
        guard i > s, i - s <= 256 else { return nil }
        let w = String(decoding: b[s..<i], as: UTF8.self)
        while i < b.count, b[i] == 0x20 { i += 1 }
        return w
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
    }

    static func contains(_ hay: ArraySlice<UInt8>, _ needle: StaticString) -> Bool {
        let n = Array(UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount))
        return hay.withUnsafeBufferPointer { h in
            n.withUnsafeBufferPointer { w in h.baseAddress.flatMap { ByteSearch.find($0, h.count, w) } != nil }
        }
    }
}
