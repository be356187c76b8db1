import Foundation
import SiftCore

/// What a server log line says, as far as its format tells.
public struct ParsedLine: Sendable, Equatable {
    /// The format the line was read as.
    public var format: LogFormat
    /// Seconds since 1970 on the server's clock.
    public var ts: Double?
    /// The level, lowercased (`info`, `warn`, `error`, …).
    public var level: String?
    /// The HTTP status (100–599).
    public var status: Int?
    /// The duration the line reports, milliseconds.
    public var durationMs: Double?
    /// The unit the duration was written or read in (`s`, `ms`, `µs`, `ns`, `min`; `from two times` when it
    /// is the span between two of the line's times), so a unit misread shows.
    public var durationUnit: String?
    /// The message, at most `LineParser.maxMessage` characters.
    public var message: String?
    /// The HTTP method, when the line tells it.
    public var method: String?
    /// The request path (or URL), when the line tells it.
    public var path: String?
    /// The request ids that sit in a field of their own (a request-id member, a positional id field, a
    /// leading `[tag]`), not inside free text someone outside the server controls (a message, a URL).
    public var fieldIDs: [RequestID] = []
    /// The line's other fields (JSON members by dotted name, `key=value` pairs) that no place above
    /// took: `err`, `provider`, `upstream`, `error.message`… At most `LineParser.maxFields`, each
    /// value at most `LineParser.maxFieldValue` characters.
    public var fields: [String: String] = [:]
    /// Fields the line's format places and the line holds (not empty, not `-`) but whose value could
    /// not be read: `time`, `status`, `duration`. `correlate` names them (`correlation.field-unread`).
    public var unreadFields: [String] = []
    /// The line's time is written without a zone (`2026-11-29 13:55:03,748`) and no `--log-timezone`
    /// said which: read as UTC (`correlate` may find the logs are in local time).
    public var naiveTime = false
    /// The lines after it that belong to it: a stack trace (Python's `Traceback …`, Java's `\tat …` and
    /// `Caused by:`), indented continuation lines. The first `StackTrace.keptLines`, each at most
    /// `StackTrace.keptLength` characters; when cut, the last says how many more there were.
    public var continuation: [String] = []
    /// The line of the continuation that names the cause (of all its lines, up to `StackTrace.maxLines`):
    /// the last `Caused by:`, else the last exception (`ConnectionError: …`,
    /// `java.lang.IllegalStateException: …`), else the first line.
    public var cause: String?

    /// Whether the line reports an error or a warning: a level that says so, or a status of 400 and
    /// above. Such lines come first where a request's lines are cut.
    public var isErrorOrWarning: Bool {
        ParsedLine.severeLevels.contains(level ?? "") || (status ?? 0) >= 400
    }

    static let severeLevels: Set<String> = ["error", "fatal", "critical", "crit", "alert", "emerg", "panic", "warn", "warning"]

    public init(
        format: LogFormat, ts: Double? = nil, level: String? = nil, status: Int? = nil, durationMs: Double? = nil,
        durationUnit: String? = nil, message: String? = nil, method: String? = nil, path: String? = nil, fieldIDs: [RequestID] = []
    ) {
        self.format = format
        self.ts = ts
        self.level = level
        self.status = status
        self.durationMs = durationMs
        self.durationUnit = durationUnit
        self.message = message
        self.method = method
        self.path = path
        self.fieldIDs = fieldIDs
    }
}

/// Parses one matching log line. Only lines that carry a wanted request id come here, so this favours
/// coverage over speed. The catalogue (`LogCatalogue`) says where each known shape keeps its fields;
/// the generic rules here fill what it leaves empty: JSON members and logfmt pairs by name, a leading
/// time, a level word, a message.
public enum LineParser {
    /// The longest message kept from a line, in characters.
    public static let maxMessage = 500

    // MARK: - JSON

    /// Fields found while walking a JSON line, each remembering how deep it was found.
    struct Fields {
        var ts: (Double, Int)?
        var level: (String, Int)?
        var status: (Int, Int)?
        var duration: (Double, Int)?
        /// Milliseconds per unit of the duration's number as written.
        var durationFactor: Double?
        var message: (String, Int)?
        var method: (String, Int)?
        var path: (String, Int)?
        /// A string field holding a whole raw log line (Loki `line`, Docker `log`, `@message`) that is not JSON.
        var rawLine: String?

        /// Fills the fields `self` lacks from `other`, whose depths move by `shift` (so that fields met
        /// later in the walk compare against them as intended: a large shift loses, a negative one wins).
        mutating func fillGaps(from other: Fields, shift: Int) {
            if ts == nil { ts = other.ts.map { ($0.0, $0.1 + shift) } }
            if level == nil { level = other.level.map { ($0.0, $0.1 + shift) } }
            if status == nil { status = other.status.map { ($0.0, $0.1 + shift) } }
            if duration == nil {
                duration = other.duration.map { ($0.0, $0.1 + shift) }
                durationFactor = other.durationFactor
            }
            if message == nil { message = other.message.map { ($0.0, $0.1 + shift) } }
            if method == nil { method = other.method.map { ($0.0, $0.1 + shift) } }
            if path == nil { path = other.path.map { ($0.0, $0.1 + shift) } }
        }
    }

    static func json(_ bytes: [UInt8], bare: Double? = nil) -> ParsedLine? {
        guard let doc = try? JSONDocument(bytes: bytes, maxDepth: 64) else { return nil }
        return json(root: doc.root, bare: bare)
    }

    /// `json(_:bare:)` of an object already parsed.
    static func json(root: JSONValue, bare: Double? = nil) -> ParsedLine? {
        guard root.isObject else { return nil }
        var f = Fields()
        collect(root, depth: 0, embed: 0, bare: bare, into: &f)
        let platform = root["ts"]?.isString == true && root["request_id"] != nil && (root["msg"] != nil || root["status"] != nil)
        var out = ParsedLine(
            format: platform ? .platform : .json, ts: f.ts?.0, level: f.level?.0, status: f.status?.0,
            durationMs: f.duration?.0, durationUnit: f.duration == nil ? nil : f.durationFactor.map(unitName), message: f.message?.0)
        out.method = f.method?.0
        out.path = f.path?.0
        if let raw = f.rawLine {
            // The wrapper carried a non-JSON line (logfmt, access, plain): its fields fill the gaps.
            let inner = Array(raw.utf8).withUnsafeBufferPointer { text($0, hint: nil, bare: bare) }
            if out.ts == nil { out.ts = inner.ts }
            if out.level == nil { out.level = inner.level }
            if out.status == nil { out.status = inner.status }
            if out.durationMs == nil { (out.durationMs, out.durationUnit) = (inner.durationMs, inner.durationUnit) }
            if out.message == nil || out.message == raw { out.message = inner.message ?? out.message }
        }
        if let m = out.message { out.message = clip(m) }
        return out
    }

    /// Lowercase, without `_`, `-`, `@`, `.`: `@timestamp` → `timestamp`, `x_request_id` → `xrequestid`.
    static func normalize(_ key: String) -> String {
        // ASCII (nearly every key): lowercased and the four separators dropped, byte by byte.
        var k = key
        if let ascii = k.withUTF8({ b -> String? in
            guard !b.contains(where: { $0 >= 0x80 }) else { return nil }
            return String(unsafeUninitializedCapacity: b.count) { out in
                var n = 0
                for c in b where c != 0x5F && c != 0x2D && c != 0x40 && c != 0x2E {
                    out[n] = c >= 0x41 && c <= 0x5A ? c + 0x20 : c
                    n += 1
                }
                return n
            }
        }) {
            return ascii
        }
        var out = ""
        out.reserveCapacity(key.utf8.count)
        for u in key.unicodeScalars where u != "_" && u != "-" && u != "@" && u != "." {
            out.unicodeScalars.append(contentsOf: String(u).lowercased().unicodeScalars)
        }
        return out
    }

    static let tsKeys: Set<String> = [
        "ts", "time", "timestamp", "datetime", "eventtime", "logtime", "date", "timemillis", "timestampms", "asctime", "timestart"
    ]
    static let levelKeys: Set<String> = ["level", "lvl", "severity", "loglevel", "levelname", "severitytext"]
    static let statusKeys: Set<String> = [
        "status", "statuscode", "httpstatus", "responsestatus", "responsecode", "httpstatuscode", "httpresponsestatuscode"
    ]
    static let messageKeys: Set<String> = ["msg", "message", "log", "line", "raw", "event"]
    static let methodKeys: Set<String> = ["method", "requestmethod", "httpmethod", "verb", "httprequestmethod"]
    static let pathKeys: Set<String> = ["path", "uri", "url", "requesturi", "requestpath", "urlpath", "target", "httptarget"]
    /// Keys under which a log shipper carries a whole original line (Loki, Docker, Fluent Bit).
    static let envelopeKeys: Set<String> = ["log", "line", "raw"]
    /// Duration keys and the factor that turns their number into milliseconds.
    static let durationKeys: [String: Double] = [
        "durationms": 1, "latencyms": 1, "elapsedms": 1, "responsetimems": 1, "requestdurationms": 1, "tookms": 1,
        "timetakenms": 1, "took": 1, "durationus": 1e-3, "latencyus": 1e-3, "durationmicros": 1e-3, "durationns": 1e-6,
        "latencyns": 1e-6, "duration": 1e3, "latency": 1e3, "elapsed": 1e3, "requesttime": 1e3, "responsetime": 1e3,
        "durations": 1e3, "durationseconds": 1e3, "rt": 1e3, "urt": 1e3, "durationsec": 1e3, "upstreamresponsetime": 1e3,
        "elapsedtime": 1e3,
        "elapsedmilliseconds": 1, "durationmilliseconds": 1, "timetaken": 1, "timeelapsed": 1e-3, "latencymilliseconds": 1,
        // OpenTelemetry's semantic conventions: seconds since 1.21, milliseconds before.
        "httpserverrequestduration": 1e3, "httpserverduration": 1
    ]

    /// Names that do not tell a unit: the format's bare unit applies to them when it has one.
    static let bareDurationKeys: Set<String> = ["duration", "latency", "elapsed", "responsetime", "took", "elapsedtime"]

    /// Milliseconds per unit of a duration under `k`.
    static func durationFactor(_ k: String, bare: Double?) -> Double? {
        if let b = bare, bareDurationKeys.contains(k) { return b }
        return durationKeys[k]
    }

    static func collect(_ object: JSONValue, depth: Int, embed: Int, bare: Double? = nil, into f: inout Fields) {
        guard depth < 8 else { return }
        object.forEachMember { key, v in
            let k = normalize(key)
            switch v.kind {
            case .object:
                collect(v, depth: depth + 1, embed: embed, bare: bare, into: &f)
            case .array:
                v.forEachElement { e in if e.isObject { collect(e, depth: depth + 1, embed: embed, bare: bare, into: &f) } }
            case .string:
                let s = v.string ?? ""
                if messageKeys.contains(k), embed < 2, s.hasPrefix("{"), s.hasSuffix("}"),
                    let doc = try? JSONDocument(string: s, maxDepth: 64), doc.root.isObject
                {
                    var inner = Fields()
                    collect(doc.root, depth: 0, embed: embed + 1, bare: bare, into: &inner)
                    if envelopeKeys.contains(k) && embed == 0 && depth <= 1 {
                        // A log shipper's envelope (Loki `line`, Docker `log`): the string is the server's
                        // original line, whose fields win over the shipper's (its `time` is when it read the line).
                        var merged = Fields()
                        merged.fillGaps(from: inner, shift: -1000)
                        merged.fillGaps(from: f, shift: 0)
                        merged.rawLine = f.rawLine
                        f = merged
                    } else {
                        // JSON inside a logged message is text the app was handed: the line's own fields win,
                        // the message's only fill what the line lacks.
                        f.fillGaps(from: inner, shift: 1000)
                    }
                    return
                }
                take(k, string: s, depth: depth, bare: bare, into: &f)
                if (k == "line" || k == "log" || k == "raw" || k == "message") && f.rawLine == nil && embed == 0 && depth <= 1 {
                    f.rawLine = s
                }
            case .number:
                take(k, number: v, depth: depth, bare: bare, into: &f)
            default:
                break
            }
        }
    }

    @inline(__always)
    static func better(_ old: Int?, _ depth: Int) -> Bool { old.map { depth < $0 } ?? true }

    /// A second time key at the same depth with a fraction, when the first was whole seconds
    /// (Fastly's `timestamp` and `time_start`): the finer one is kept if it falls in that second.
    static func finer(_ old: (Double, Int)?, _ depth: Int, _ s: String) -> Bool {
        guard let o = old, o.1 == depth, o.0 == o.0.rounded(.down) else { return false }
        return s.contains(".") || s.contains(",")
    }

    static func take(_ k: String, string s: String, depth: Int, bare: Double? = nil, into f: inout Fields) {
        if tsKeys.contains(k), better(f.ts?.1, depth) || finer(f.ts, depth, s), let t = LogTime.parse(s) {
            if let old = f.ts, old.1 == depth, !(t > old.0 && t < old.0 + 1) { return }
            f.ts = (t, depth)
        } else if levelKeys.contains(k), better(f.level?.1, depth), !s.isEmpty {
            f.level = (s.lowercased(), depth)
        } else if statusKeys.contains(k), better(f.status?.1, depth), let n = Int(s), (100...599).contains(n) {
            f.status = (n, depth)
        } else if let factor = durationFactor(k, bare: bare), better(f.duration?.1, depth),
            let d = durationRead(s, factor: k == "timetaken" && s.contains(".") ? TimeUnit.seconds.milliseconds : factor)
        {
            f.duration = (d.ms, depth)
            f.durationFactor = d.factor
        } else if messageKeys.contains(k), better(f.message?.1, depth) {
            f.message = (s, depth)
        } else if methodKeys.contains(k), better(f.method?.1, depth), let m = LineParser.method(s) {
            f.method = (m, depth)
        } else if pathKeys.contains(k), better(f.path?.1, depth), s.hasPrefix("/") || s.hasPrefix("http://") || s.hasPrefix("https://") {
            f.path = (clip(s), depth)
        }
    }

    static func take(_ k: String, number v: JSONValue, depth: Int, bare: Double? = nil, into f: inout Fields) {
        guard let d = v.double else { return }
        if tsKeys.contains(k), better(f.ts?.1, depth), let t = LogTime.fromEpoch(d) {
            f.ts = (t, depth)
        } else if statusKeys.contains(k), better(f.status?.1, depth), let n = v.int, (100...599).contains(n) {
            f.status = (n, depth)
        } else if var factor = durationFactor(k, bare: bare), better(f.duration?.1, depth) {
            // Nanoseconds are whole (Go's time.Duration); a bare number with a fraction there is seconds.
            if factor == TimeUnit.nanoseconds.milliseconds, d != d.rounded(.towardZero) { factor = TimeUnit.seconds.milliseconds }
            // `timeTaken` is IIS's whole milliseconds; with a fraction, seconds (Azure Front Door, Application Gateway).
            if k == "timetaken", v.rawBytes.contains(UInt8(ascii: ".")) { factor = TimeUnit.seconds.milliseconds }
            // `responseTime` written as a whole number is milliseconds (pino-http, express-winston, morgan's
            // JSON tokens); in seconds it comes with a fraction (nginx's `$request_time`).
            if k == "responsetime", bare == nil, !v.rawBytes.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
            {
                factor = TimeUnit.milliseconds.milliseconds
            }
            if let ms = durationMs(d, factor: factor) {
                f.duration = (ms, depth)
                f.durationFactor = factor
            }
        }
    }

    /// The unit words a duration is written with, as milliseconds per unit.
    static let durationUnits: [(String, Double)] = [
        ("ms", 1), ("msec", 1), ("msecs", 1), ("millis", 1), ("milliseconds", 1), ("µs", 1e-3), ("us", 1e-3), ("μs", 1e-3),
        ("microseconds", 1e-3), ("ns", 1e-6), ("nanoseconds", 1e-6), ("s", 1e3), ("sec", 1e3), ("secs", 1e3), ("seconds", 1e3)
    ]

    /// A duration written as text: `38.2`, `38ms`, `0.038s`, `120µs`, `101 msecs`, `1.5m`; a bare number
    /// is read in the key's unit.
    static func durationText(_ s: String, factor: Double) -> Double? { durationRead(s, factor: factor)?.ms }

    /// As `durationText`, with the milliseconds per unit it was read in (the unit written after the
    /// number, else `factor`).
    static func durationRead(_ s: String, factor: Double) -> (ms: Double, factor: Double)? {
        let t = trimmingWhitespace(s)
        if let d = Double(t) { return durationMs(d, factor: factor).map { ($0, factor) } }
        for (u, f) in durationUnits + [("m", 6e4)] where t.hasSuffix(u) {
            if let d = Double(trimmingWhitespace(String(t.dropLast(u.count)))) { return durationMs(d, factor: f).map { ($0, f) } }
        }
        return nil
    }

    /// The name of a unit worth `factor` milliseconds.
    public static func unitName(_ factor: Double) -> String {
        switch factor {
        case 1e3: "s"
        case 1: "ms"
        case 1e-3: "µs"
        case 1e-6: "ns"
        case 6e4: "min"
        default: "×\(factor) ms"
        }
    }

    /// The longest duration read, milliseconds (about 31 years): past it a number is no duration.
    public static let maxDurationMs = 1e12

    /// `value` in a unit worth `factor` milliseconds, as milliseconds; nil when negative, not finite, or
    /// past `maxDurationMs` (so no product or later conversion of it can overflow).
    static func durationMs(_ value: Double, factor: Double) -> Double? {
        guard value.isFinite, value >= 0 else { return nil }
        let ms = value * factor
        return ms.isFinite && ms <= maxDurationMs ? ms : nil
    }

    static func clip(_ s: String) -> String {
        s.count > maxMessage ? String(s.prefix(maxMessage)) + "…" : s
    }

    // MARK: - Text formats

    static func text(_ b: UnsafeBufferPointer<UInt8>, hint: LogFormat?, bare: Double? = nil) -> ParsedLine {
        let pairs = logfmtPairs(b)
        let startsWithPair = pairs.first.map { $0.at == 0 } ?? false
        if startsWithPair && pairs.count >= 2 { return logfmt(pairs, b, bare: bare) }
        if let a = access(b, pairs: pairs) { return a }
        if hint == .logfmt && pairs.count >= 2 { return logfmt(pairs, b, bare: bare) }
        return plain(b, pairs: pairs, bare: bare)
    }

    struct Pair {
        var at: Int
        var key: String
        var value: String
    }

    /// Every `key=value` / `key="value"` token of a line.
    static func logfmtPairs(_ b: UnsafeBufferPointer<UInt8>) -> [Pair] {
        var out: [Pair] = []
        var i = 0
        let n = b.count
        func isKey(_ c: UInt8) -> Bool {
            RequestID.isWordByte(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: ".") || c == UInt8(ascii: "-") || c == UInt8(ascii: "@")
        }
        while i < n, out.count < 64 {
            while i < n, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
            let ks = i
            while i < n, isKey(b[i]) { i += 1 }
            guard i < n, i > ks, b[i] == UInt8(ascii: "=") else {
                // Not a pair: skip this token (a quoted token as a whole).
                if i < n, b[i] == UInt8(ascii: "\"") {
                    i += 1
                    while i < n, b[i] != UInt8(ascii: "\"") { i += b[i] == 0x5C ? 2 : 1 }
                    i += 1
                } else {
                    while i < n, b[i] != 0x20 && b[i] != 0x09 { i += 1 }
                }
                continue
            }
            let key = String(decoding: UnsafeBufferPointer(rebasing: b[ks..<i]), as: UTF8.self)
            i += 1
            var value: [UInt8] = []
            if i < n, b[i] == UInt8(ascii: "\"") {
                i += 1
                while i < n, b[i] != UInt8(ascii: "\"") {
                    if b[i] == 0x5C, i + 1 < n {
                        let e = b[i + 1]
                        value.append(e == UInt8(ascii: "n") ? 0x0A : e == UInt8(ascii: "t") ? 0x09 : e)
                        i += 2
                    } else {
                        value.append(b[i])
                        i += 1
                    }
                }
                i += 1
            } else {
                while i < n, b[i] != 0x20 && b[i] != 0x09 { value.append(b[i]); i += 1 }
                // `latency=101 ms` (Rust's tracing): a number and a unit word after it are one value.
                if let d = value.first, d &- 0x30 < 10, value.allSatisfy({ $0 &- 0x30 < 10 || $0 == UInt8(ascii: ".") }), i + 1 < n,
                    b[i] == 0x20
                {
                    var j = i + 1
                    while j < n, b[j] != 0x20 && b[j] != 0x09 { j += 1 }
                    let word = String(decoding: UnsafeBufferPointer(rebasing: b[(i + 1)..<j]), as: UTF8.self)
                    if word != "s", RequestPhrase.unitFactor(Substring(word)) != nil {
                        value += Array(word.utf8)
                        i = j
                    }
                }
            }
            out.append(Pair(at: ks, key: key, value: String(decoding: value, as: UTF8.self)))
        }
        return out
    }

    static func apply(_ pairs: [Pair], to out: inout ParsedLine, bare: Double? = nil) {
        var f = Fields()
        for p in pairs {
            let k = normalize(p.key)
            take(k, string: p.value, depth: 0, bare: bare, into: &f)
        }
        if out.ts == nil { out.ts = f.ts?.0 }
        if out.level == nil { out.level = f.level?.0 }
        if out.status == nil { out.status = f.status?.0 }
        if out.durationMs == nil, let d = f.duration {
            out.durationMs = d.0
            out.durationUnit = f.durationFactor.map(unitName)
        }
        if out.message == nil { out.message = f.message.map { clip($0.0) } }
    }

    static func logfmt(_ pairs: [Pair], _ b: UnsafeBufferPointer<UInt8>, bare: Double? = nil) -> ParsedLine {
        var out = ParsedLine(format: .logfmt)
        apply(pairs, to: &out, bare: bare)
        if out.ts == nil, let base = b.baseAddress { out.ts = LogTime.find(in: base, count: b.count) }
        return out
    }

    /// nginx / Apache access line: `… [29/Nov/2026:10:15:02 +0000] "GET /path HTTP/1.1" 200 512 … 0.038`.
    static func access(_ b: UnsafeBufferPointer<UInt8>, pairs: [Pair]) -> ParsedLine? {
        guard let base = b.baseAddress, let lb = memchr(base, 0x5B, min(b.count, 256)) else { return nil }
        let at = base.distance(to: lb.assumingMemoryBound(to: UInt8.self)) + 1
        guard let (ts, len) = LogTime.clf(base + at, b.count - at), at + len < b.count, b[at + len] == UInt8(ascii: "]") else { return nil }
        var out = ParsedLine(format: .access, ts: ts)
        var i = at + len + 1
        while i < b.count, b[i] == 0x20 { i += 1 }
        if i < b.count, b[i] == UInt8(ascii: "\"") {
            let rs = i + 1
            i += 1
            while i < b.count, b[i] != UInt8(ascii: "\"") { i += b[i] == 0x5C ? 2 : 1 }
            let re = min(i, b.count)
            out.message = clip(String(decoding: UnsafeBufferPointer(rebasing: b[rs..<re]), as: UTF8.self))
            i = re + 1
            while i < b.count, b[i] == 0x20 { i += 1 }
            if i + 3 <= b.count, let s = LogTime.digits(base, i, 3), (100...599).contains(s),
                i + 3 == b.count || b[i + 3] == 0x20
            {
                out.status = s
            }
        }
        apply(
            pairs.filter {
                ["rt", "requesttime", "request_time", "urt", "upstream_response_time", "duration_ms", "duration"].contains($0.key)
            }, to: &out)
        if out.durationMs == nil {
            // `$request_time` logged last: a decimal number with a point, in seconds.
            var e = b.count
            while e > 0, b[e - 1] == 0x20 { e -= 1 }
            var s = e
            while s > 0, b[s - 1] != 0x20 { s -= 1 }
            let token = String(decoding: UnsafeBufferPointer(rebasing: b[s..<e]), as: UTF8.self)
            if s > at + len, token.contains("."), let d = Double(token), d.isFinite, d >= 0, d < 86400 {
                out.durationMs = d * 1000
                out.durationUnit = "s"
            }
        }
        return out
    }

    static let levelWords: Set<String> = [
        "trace", "debug", "info", "notice", "warn", "warning", "error", "err", "critical", "crit", "fatal", "panic", "alert", "emerg"
    ]

    /// Plain text: a leading timestamp (maybe in brackets), maybe a level word, the rest is the message.
    static func plain(_ b: UnsafeBufferPointer<UInt8>, pairs: [Pair], bare: Double? = nil) -> ParsedLine {
        var out = ParsedLine(format: .plain)
        guard let base = b.baseAddress else { return out }
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "[") { i += 1 }
        if let (t, len) = LogTime.iso(base + i, b.count - i) {
            out.ts = t
            i += len
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1 }
        } else if let t = LogTime.find(in: base, count: b.count) {
            out.ts = t
            i = 0
        }
        // A level word among the next two tokens.
        var j = i
        for _ in 0..<2 {
            while j < b.count, b[j] == 0x20 || b[j] == 0x09 || b[j] == UInt8(ascii: "-") { j += 1 }
            let ws = j
            while j < b.count, b[j] != 0x20 && b[j] != 0x09 { j += 1 }
            var word = String(decoding: UnsafeBufferPointer(rebasing: b[ws..<j]), as: UTF8.self).lowercased()
            word = word.trimmingCharacters(in: CharacterSet(charactersIn: "[]():"))
            if levelWords.contains(word) {
                out.level = word
                i = j
                break
            }
        }
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == UInt8(ascii: ":") || b[i] == UInt8(ascii: "-") { i += 1 }
        let rest = String(decoding: UnsafeBufferPointer(rebasing: b[min(i, b.count)...]), as: UTF8.self)
        if !rest.isEmpty { out.message = clip(rest) }
        let kept = out.message
        out.message = nil
        apply(pairs, to: &out, bare: bare)
        if out.message == nil { out.message = kept }
        return out
    }
}

/// A log line's continuation: what a logger writes on the lines after a record (a stack trace, an
/// indented detail), read with the record it belongs to.
public enum StackTrace {
    /// Lines read after a record (and bytes), looking for the cause.
    public static let maxLines = 512
    public static let maxBytes = 64 << 10
    /// Lines kept, and characters of each.
    public static let keptLines = 8
    public static let keptLength = 240

    private static let openers = [
        "Traceback (most recent call last)", "Caused by:", "During handling of the above exception",
        "The above exception was the direct cause", "Suppressed:"
    ].map { Array($0.utf8) }
    private static let exceptionEnds = ["Error", "Exception", "Exit", "Interrupt", "Warning", "Failure", "Fault", "Panic"].map {
        Array($0.utf8)
    }
    private static let nameBytes: Set<UInt8> = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$".utf8))

    /// Whether a raw line continues the record before it: indented (and not an indented JSON member,
    /// which is read as its pretty-printed record), a traceback's opener, or an exception's header
    /// (`ValueError: …`, `java.lang.IllegalStateException: …`, `panic: …`).
    static func continues(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = line.first else { return false }
        if first == 0x20 || first == 0x09 {
            var i = 0
            while i < line.count && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
            return i < line.count && line[i] != UInt8(ascii: "\"") && line[i] != UInt8(ascii: "{")
        }
        for o in openers where line.count >= o.count && line[0..<o.count].elementsEqual(o) { return true }
        return isException(line) || isGoroutine(line)
    }

    /// Go's goroutine header in a panic's dump: `goroutine 35 [running]:`.
    static func isGoroutine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let w = goroutineWord
        guard line.count > w.count + 3, line[0..<w.count].elementsEqual(w), line.last == UInt8(ascii: ":") else { return false }
        var i = w.count
        while i < line.count && line[i] >= 0x30 && line[i] <= 0x39 { i += 1 }
        return i > w.count && i + 1 < line.count && line[i] == 0x20 && line[i + 1] == UInt8(ascii: "[")
    }
    private static let goroutineWord = Array("goroutine ".utf8)

    /// A frame's function line in a Go dump, unindented (`main.handler(...)`,
    /// `net/http.(*conn).serve.func1()`, `panic({0x6a2c40?, 0x9a1d50?})`): no space before its first
    /// `(`, and `)` last. Read only inside a dump, where its file line (indented) follows.
    static func isGoFrame(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard line.count < 400, line.last == UInt8(ascii: ")"), let open = line.firstIndex(of: UInt8(ascii: "(")), open > 0 else {
            return false
        }
        return !line[0..<open].contains(0x20)
    }

    /// `Name: …` or `Name` alone, where the name (dotted, `$` allowed) ends in Error, Exception, … .
    static func isException(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < line.count && i < 200 && nameBytes.contains(line[i]) { i += 1 }
        guard i > 0, i == line.count || line[i] == UInt8(ascii: ":") else { return false }
        let name = line[0..<i]
        return exceptionEnds.contains { e in name.count >= e.count && name.suffix(e.count).elementsEqual(e) }
            || name.elementsEqual(panicWord)
    }
    private static let panicWord = Array("panic".utf8)

    /// The lines after a record's line at `from` in `base[0..<count]` that continue it (those kept) and
    /// the one naming the cause.
    public static func read(_ base: UnsafePointer<UInt8>, _ count: Int, from: Int) -> (kept: [String], cause: String?) {
        var kept: [String] = []
        var seen = 0, bytes = 0, at = from
        var causedBy: String?, exception: String?, first: String?
        var inGoroutine = false
        func text(_ b: UnsafeBufferPointer<UInt8>) -> String {
            var s = 0, e = b.count
            while s < e && (b[s] == 0x20 || b[s] == 0x09) { s += 1 }
            while e > s && (b[e - 1] == 0x20 || b[e - 1] == 0x09) { e -= 1 }
            return String(decoding: b[s..<Swift.min(e, s + keptLength)], as: UTF8.self)
        }
        while at < count && seen < maxLines && bytes < maxBytes {
            let end = ByteSearch.index(of: 0x0A, base + at, count - at).map { at + $0 } ?? count
            var e = end
            if e > at && base[e - 1] == 0x0D { e -= 1 }
            let line = UnsafeBufferPointer(start: base + at, count: e - at)
            guard !line.isEmpty, continues(line) || (inGoroutine && isGoFrame(line)) else { break }
            if isGoroutine(line) { inGoroutine = true }
            seen += 1
            bytes += line.count
            if kept.count < keptLines { kept.append(String(decoding: line.prefix(keptLength), as: UTF8.self)) }
            var s = 0
            while s < line.count && (line[s] == 0x20 || line[s] == 0x09) { s += 1 }
            let body = UnsafeBufferPointer(rebasing: line[s...])
            if body.starts(with: causedByWord) { causedBy = text(line) } else if isException(body) { exception = text(line) }
            if first == nil { first = text(line) }
            at = end + 1
        }
        if seen > kept.count { kept.append("… \(seen - kept.count) more line\(seen - kept.count == 1 ? "" : "s")") }
        return (kept, causedBy ?? exception ?? first)
    }
    private static let causedByWord = Array("Caused by:".utf8)
}
