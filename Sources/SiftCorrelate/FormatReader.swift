import Foundation
import SiftCore

/// How server log lines are read: a forced format, the zone of times written without one, and the
/// time near which a year-less (syslog) time is placed.
public struct LogReadOptions: Sendable, Equatable {
    /// `--log-format`: every line is read as this entry of the catalogue.
    public var format: LogFormat?
    /// `--log-timezone`: the zone of times written without an offset (UTC when nil).
    public var timezone: TimeZone?
    /// A time near the logs' (the sessions' start): a syslog time takes the year that puts it closest.
    public var referenceTime: Double?
    /// The team's own formats (`--log-format FILE`, `.pbsift.json`'s `logFormats`), tried before the catalogue.
    public var userFormats: [UserLogFormat] = []
    /// The columns a W3C extended log's `#Fields:` directive names (set per file by the scan).
    public var w3cFields: [String] = []

    public init(format: LogFormat? = nil, timezone: TimeZone? = nil, referenceTime: Double? = nil, userFormats: [UserLogFormat] = []) {
        self.userFormats = userFormats
        self.format = format
        self.timezone = timezone
        self.referenceTime = referenceTime
    }

    /// A zone from `UTC`, `Z`, `+02:00`, `-0530`, `+2` or an IANA name (`Europe/Paris`); nil when unknown.
    public static func zone(_ text: String) -> TimeZone? {
        let t = trimmingWhitespace(text)
        if t.uppercased() == "UTC" || t.uppercased() == "Z" || t.uppercased() == "GMT" { return TimeZone(secondsFromGMT: 0) }
        if let f = t.first, f == "+" || f == "-" {
            let digits = t.dropFirst().filter { $0 != ":" }
            guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCII), let v = Int(digits) else { return nil }
            let (h, m) = digits.count <= 2 ? (v, 0) : (v / 100, v % 100)
            guard h <= 23, m <= 59 else { return nil }
            return TimeZone(secondsFromGMT: (f == "-" ? -1 : 1) * (h * 3600 + m * 60))
        }
        return TimeZone(identifier: t)
    }
}

/// One line taken apart once: JSON members flattened to lowercase paths, or the tokens and logfmt pairs of text.
struct LineView {
    struct Token {
        enum Kind { case bare, quoted, bracket }
        var start: Int
        var end: Int
        var kind: Kind
        /// The text inside the quotes or brackets.
        var text: String
    }

    struct Value {
        var text: String
        var number: Bool
    }

    let bytes: [UInt8]
    var root: JSONValue?
    /// JSON members by lowercase dotted path; logfmt pairs by lowercase key.
    var flat: [String: Value] = [:]
    /// Paths in the order met (for the field ids).
    var order: [String] = []
    var tokens: [Token] = []
    var pairs: [LineParser.Pair] = []

    init(_ bytes: [UInt8], focus: RequestID?) {
        self.bytes = bytes
        if bytes.first == UInt8(ascii: "{"), let doc = try? JSONDocument(bytes: bytes, maxDepth: 64), doc.root.isObject {
            root = doc.root
            flatten(doc.root, path: "", depth: 0, focus: focus.map { $0.description })
        } else {
            tokens = LineView.tokenize(bytes)
            pairs = bytes.withUnsafeBufferPointer { LineParser.logfmtPairs($0) }
            for p in pairs {
                let k = p.key.lowercased()
                if flat[k] == nil { flat[k] = Value(text: p.value, number: false); order.append(k) }
            }
        }
    }

    var isJSON: Bool { root != nil }

    private mutating func put(_ path: String, _ v: Value) {
        guard flat.count < 1024, flat[path] == nil else { return }
        flat[path] = v
        order.append(path)
    }

    /// Members to paths; an array of objects gives the element holding the focus id (else its first);
    /// OTLP's `logRecords` element is read at the top, and `[{key, value: {…Value: x}}]` (OTLP
    /// attributes) as `path.key`.
    private mutating func flatten(_ v: JSONValue, path: String, depth: Int, focus: String?) {
        guard depth < 10 else { return }
        switch v.kind {
        case .object:
            v.forEachMember { key, m in
                flatten(m, path: path.isEmpty ? key.lowercased() : path + "." + key.lowercased(), depth: depth + 1, focus: focus)
            }
        case .array:
            let elements = v.elements
            guard let first = elements.first else { return }
            if first.isObject, first["key"] != nil, first["value"] != nil {
                for e in elements.prefix(256) {
                    guard let k = e["key"]?.string else { continue }
                    var inner = e["value"]
                    if let iv = inner, iv.isObject, let m = iv.members.first { inner = m.value }
                    if let iv = inner { flatten(iv, path: path + "." + k.lowercased(), depth: depth + 1, focus: focus) }
                }
                return
            }
            var pick = first
            if first.isObject, elements.count > 1, let f = focus {
                pick = elements.first { String(decoding: $0.rawBytes, as: UTF8.self).contains(f) } ?? first
            }
            let reset = path.hasSuffix("logrecords") && pick.isObject
            flatten(pick, path: reset ? "" : path, depth: depth + 1, focus: focus)
        case .string:
            put(path, Value(text: v.string ?? "", number: false))
        case .number:
            put(path, Value(text: v.rawText, number: true))
        case .true, .false:
            put(path, Value(text: v.kind == .true ? "true" : "false", number: false))
        default:
            break
        }
    }

    /// Tokens split at spaces; a `"quoted"` (backslash escapes) or `[bracketed]` run is one token.
    static func tokenize(_ b: [UInt8]) -> [Token] {
        var out: [Token] = []
        var i = 0
        let n = b.count
        while i < n, out.count < 128 {
            while i < n, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
            guard i < n else { break }
            let s = i
            if b[i] == UInt8(ascii: "\"") {
                i += 1
                var text: [UInt8] = []
                while i < n, b[i] != UInt8(ascii: "\"") {
                    if b[i] == 0x5C, i + 1 < n { text.append(b[i + 1]); i += 2 } else { text.append(b[i]); i += 1 }
                }
                i = min(n, i + 1)
                out.append(Token(start: s, end: i, kind: .quoted, text: String(decoding: text, as: UTF8.self)))
            } else if b[i] == UInt8(ascii: "[") {
                while i < n, b[i] != UInt8(ascii: "]") { i += 1 }
                let inner = String(decoding: b[(s + 1)..<min(i, n)], as: UTF8.self)
                i = min(n, i + 1)
                out.append(Token(start: s, end: i, kind: .bracket, text: inner))
            } else {
                while i < n, b[i] != 0x20 && b[i] != 0x09 { i += 1 }
                out.append(Token(start: s, end: i, kind: .bare, text: String(decoding: b[s..<i], as: UTF8.self)))
            }
        }
        return out
    }

    /// The JSON objects a text line holds after its start, each from a `{` after a space or tab to its
    /// closing brace (strings and escapes followed), parsed once: at most 3, each under 64 KiB.
    static func embeddedObjects(_ b: [UInt8]) -> [LineView] {
        var out: [LineView] = []
        var i = 1
        while i < b.count, out.count < 3 {
            guard b[i] == UInt8(ascii: "{"), b[i - 1] == 0x20 || b[i - 1] == 0x09, i + 1 < b.count, b[i + 1] == UInt8(ascii: "\"") else {
                i += 1
                continue
            }
            var depth = 0
            var inString = false
            var j = i
            var end: Int?
            while j < b.count, j - i < 64 << 10 {
                let c = b[j]
                if inString {
                    if c == 0x5C { j += 1 } else if c == UInt8(ascii: "\"") { inString = false }
                } else if c == UInt8(ascii: "\"") {
                    inString = true
                } else if c == UInt8(ascii: "{") {
                    depth += 1
                } else if c == UInt8(ascii: "}") {
                    depth -= 1
                    if depth == 0 { end = j; break }
                }
                j += 1
            }
            guard let e = end else { break }
            let object = LineView(Array(b[i...e]), focus: nil)
            if object.isJSON { out.append(object) }
            i = e + 1
        }
        return out
    }

    func token(_ k: Int) -> Token? {
        let i = k < 0 ? tokens.count + k : k
        return i >= 0 && i < tokens.count ? tokens[i] : nil
    }

    func contains(_ literal: String) -> Bool {
        let l = Array(literal.utf8)
        return bytes.withUnsafeBufferPointer { b in
            l.withUnsafeBufferPointer { w in b.baseAddress.flatMap { ByteSearch.find($0, b.count, w) } != nil }
        }
    }
}

extension LineParser {
    /// Parses `line` (no trailing newline) with the catalogue: `options.format` when forced, else `hint`
    /// (the file's format) when the line has its shape, else the first entry whose clues hold. `focus`
    /// is the wanted id the line carries (picks the record of an OTLP batch that holds it).
    public static func parse(
        _ line: UnsafeBufferPointer<UInt8>, hint: LogFormat? = nil, options: LogReadOptions = LogReadOptions(),
        focus: RequestID? = nil
    ) -> ParsedLine {
        var start = 0
        var end = line.count
        if end >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF { start = 3 } // a UTF-8 byte order mark
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x0D || line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        // What wraps the app's line (a container runtime, syslog, journald) is peeled first.
        let peeled = LogWrapper.peel(Array(line[start..<end]))
        // A W3C log's columns, as its `#Fields:` directive names them.
        if options.format == nil || options.format?.rawValue == W3C.name, !options.w3cFields.isEmpty,
            var p = W3C.read(peeled.inner, fields: options.w3cFields, options: options)
        {
            if p.ts == nil { p.ts = peeled.ts }
            return p
        }
        if options.format == nil {
            for u in options.userFormats {
                guard var p = u.read(peeled.inner, options: options) else { continue }
                if p.ts == nil { p.ts = peeled.ts }
                return p
            }
        }
        let view = LineView(peeled.inner, focus: focus)
        let entry = choose(view, hint: hint, forced: options.format)
        var parsed = read(view, as: entry, options: options)
        if parsed.ts == nil { parsed.ts = peeled.ts }
        // A whole-second time written as the line was (nginx's `$time_local` at completion, an app
        // logger's), inside a wrapper that stamped the same second finer (CRI, Docker, `kubectl logs
        // --timestamps`): the wrapper's time is that moment to the nanosecond.
        if let w = peeled.ts, let t = parsed.ts, t == t.rounded(.down), w > t, w < t + 1,
            entry.timeMarks == .end || entry.timeMarks == .logged
        {
            parsed.ts = w
        }
        return parsed
    }

    /// Convenience for tests and small inputs.
    public static func parse(_ line: String, hint: LogFormat? = nil, options: LogReadOptions = LogReadOptions()) -> ParsedLine {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer { parse($0, hint: hint, options: options) }
    }

    /// The catalogue entry a line is read as.
    static func choose(_ v: LineView, hint: LogFormat?, forced: LogFormat?) -> LogFormatEntry {
        if let f = forced, let e = LogCatalogue.entry(named: f.rawValue) { return e }
        if let h = hint, let e = LogCatalogue.entry(named: h.rawValue), e.json == v.isJSON, holds(e, v) { return e }
        for e in LogCatalogue.entries where e.json == v.isJSON && holds(e, v) { return e }
        return LogCatalogue.entries[LogCatalogue.entries.count - 1]
    }

    static func holds(_ e: LogFormatEntry, _ v: LineView) -> Bool {
        e.clues.allSatisfy { clue(ok: $0, v) }
    }

    static func clue(ok c: FormatClue, _ v: LineView) -> Bool {
        switch c {
        case .has(let k): return v.flat[k] != nil
        case .lacks(let k): return v.flat[k] == nil
        case .string(let k): return v.flat[k].map { !$0.number } ?? false
        case .hasAny(let keys): return keys.contains { v.flat[$0] != nil }
        case .timeAt(let i): return v.token(i).flatMap { LogTime.parseZoned($0.text) } != nil
        case .isoTimeAt(let i):
            guard let t = v.token(i) else { return false }
            let u = Array(t.text.utf8)
            return u.count >= 19 && u[10] | 0x20 == UInt8(ascii: "t") && LogTime.parseZoned(t.text) != nil
        case .requestAt(let i): return v.token(i).map { $0.kind == .quoted && requestLine($0.text) != nil } ?? false
        case .decimalAt(let i): return v.token(i).map { isDecimal($0) } ?? false
        case .integerAt(let i): return v.token(i).map { isInteger($0) } ?? false
        case .bracketAt(let i): return v.token(i)?.kind == .bracket
        case .wordAt(let i, let words): return v.token(i).map { $0.kind == .bare && words.contains($0.text) } ?? false
        case .contains(let s): return v.contains(s)
        case .containsAny(let list): return list.contains { v.contains($0) }
        case .logfmt: return v.pairs.count >= 2 && v.pairs[0].at == 0
        case .decimalAfter(let n): return v.tokens.dropFirst(n + 1).contains { isDecimal($0) }
        case .integerAfter(let n): return v.tokens.dropFirst(n + 1).contains { isInteger($0) }
        case .leadingTime: return leadingTime(v.bytes, options: LogReadOptions()) != nil
        case .leadingTimeWithComma:
            guard let (_, len, _) = leadingTime(v.bytes, options: LogReadOptions()), len >= 23 else { return false }
            return v.bytes.prefix(len).contains(UInt8(ascii: ","))
        case .klog:
            return v.bytes.withUnsafeBufferPointer { b in b.baseAddress.flatMap { LogTime.klog($0, b.count, near: nil) } != nil }
        case .directive:
            return false
        case .durationAt(let i):
            return v.token(i).map { $0.kind == .bare && RequestPhrase.suffixed(Substring($0.text)) != nil } ?? false
        case .timersAt(let i):
            guard let t = v.token(i), t.kind == .bare else { return false }
            let parts = t.text.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count >= 4 && parts.count <= 6 && parts.allSatisfy { p in Int(p.hasPrefix("+") ? p.dropFirst() : p) != nil }
        }
    }

    static func isDecimal(_ t: LineView.Token) -> Bool {
        guard t.kind == .bare, let dot = t.text.firstIndex(of: ".") else { return false }
        let a = t.text[..<dot], b = t.text[t.text.index(after: dot)...]
        return !a.isEmpty && !b.isEmpty && a.allSatisfy(\.isASCIIDigit) && b.allSatisfy(\.isASCIIDigit)
    }

    static func isInteger(_ t: LineView.Token) -> Bool {
        t.kind == .bare && !t.text.isEmpty && t.text.count <= 15 && t.text.allSatisfy(\.isASCIIDigit)
    }

    /// `GET /path HTTP/1.1` → (method, target).
    static func requestLine(_ s: String) -> (String, String)? {
        let parts = s.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].count <= 12, parts[0].allSatisfy({ $0 >= "A" && $0 <= "Z" }) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    // MARK: - Reading an entry's fields

    static func read(_ v: LineView, as e: LogFormatEntry, options: LogReadOptions) -> ParsedLine {
        var out = ParsedLine(format: LogFormat(e.name))
        var messageAt: Int?
        var embedded: [LineView] = []
        for place in e.time where out.ts == nil { out.ts = time(place, v, unit: e.timeUnit, options: options) }
        for place in e.status where out.status == nil { out.status = text(place, v).flatMap(status) }
        for place in e.duration where out.durationMs == nil {
            if let d = duration(place, v, unit: e.durationUnit, options: options) { (out.durationMs, out.durationUnit) = (d.ms, d.unit) }
        }
        for place in e.method where out.method == nil { out.method = text(place, v).flatMap { method($0) } }
        for place in e.path where out.path == nil { out.path = text(place, v).flatMap { path($0) } }
        for place in e.level where out.level == nil { out.level = text(place, v).flatMap(level) }
        for place in e.message where out.message == nil {
            if case .after(let lit) = place, let at = offset(of: lit, in: v.bytes) {
                messageAt = at + lit.utf8.count
                out.message = String(decoding: v.bytes[(at + lit.utf8.count)...], as: UTF8.self)
            } else {
                out.message = text(place, v)
            }
        }
        if !e.patterns.isEmpty {
            let subject = out.message ?? String(decoding: v.bytes, as: UTF8.self)
            for p in e.patterns { match(p, in: subject, unit: e.durationUnit, into: &out) }
        }
        // What the entry's places leave empty, the generic rules fill (in the entry's bare unit).
        let bare = e.bareDurationUnit.map(\.milliseconds)
        if v.isJSON {
            if e.name == LogFormat.json.rawValue || e.name == LogFormat.platform.rawValue, let g = json(v.bytes, bare: bare) {
                fill(&out, from: g)
                if e.name == LogFormat.json.rawValue, g.format == .platform { out.format = .platform }
            } else if let g = json(v.bytes, bare: bare) {
                fill(&out, from: g)
            }
        } else {
            // JSON objects inside a text line (zap's console fields, Monolog's context and extra) are fields.
            embedded = LineView.embeddedObjects(v.bytes)
            for o in embedded { if let r = o.root, let g = json(root: r, bare: bare) { fill(&out, from: g) } }
            let g = v.bytes.withUnsafeBufferPointer { text($0, hint: e.name == "logfmt" ? .logfmt : nil, bare: bare) }
            if e.name == LogFormat.plain.rawValue {
                if out.message == nil, g.message != nil { messageAt = plainMessageStart(v) }
            }
            fill(&out, from: g)
            if out.ts == nil, let (t, _, zoned) = leadingTime(v.bytes, options: options) { out.ts = zoned ? t : localize(t, options) }
            // A time in brackets further on (`[Sun Nov 29 12:55:03 2026]`, `[29/Nov/2026 12:55:03]`).
            if out.ts == nil {
                for t in v.tokens.prefix(16) where t.kind == .bracket {
                    if let (time, zoned) = LogTime.parseZoned(t.text) { out.ts = zoned ? time : localize(time, options); break }
                }
            }
        }
        // A request told in words fills what is still empty (the message of a JSON line, a text line whole).
        if out.status == nil || out.durationMs == nil {
            let words: String? = v.isJSON ? out.message : String(decoding: v.bytes.prefix(2048), as: UTF8.self)
            if let w = words, let r = RequestPhrase.read(w[...]) {
                if out.status == nil { out.status = r.status }
                if out.durationMs == nil { (out.durationMs, out.durationUnit) = (r.durationMs, r.durationUnit) }
                if out.method == nil { out.method = r.method }
                if out.path == nil { out.path = r.path.flatMap(path) }
            }
        }
        if let m = out.message { out.message = clip(m) }
        out.fieldIDs = fieldIDs(v, e, messageAt: messageAt, embedded: embedded)
        out.fields = otherFields(v, e)
        for (name, places, read) in [
            ("time", e.time, out.ts != nil), ("status", e.status, out.status != nil), ("duration", e.duration, out.durationMs != nil)
        ]
        where !read && places.contains(where: { holds($0, v) }) {
            out.unreadFields.append(name)
        }
        return out
    }

    /// Whether the line holds something at `place` (not empty, not `-`): a value that was there to read.
    static func holds(_ place: FieldPlace, _ v: LineView) -> Bool {
        let t: String?
        switch place {
        case .key(let k): t = v.flat[k]?.text
        case .token(let i): t = v.token(i)?.text
        default: t = nil
        }
        guard let t else { return false }
        let s = trimmingWhitespace(t)
        return !s.isEmpty && s != "-"
    }

    /// Fields a server line carries at most, and the longest value kept of one.
    public static let maxFields = 24
    public static let maxFieldValue = 300
    /// Bytes of other fields kept for one line in all (names and values).
    public static let maxFieldBytes = 2048

    /// Names whose value the line's own places read (time, status, duration, method, path, level,
    /// message, request ids): not repeated among its other fields.
    static let readNames: Set<String> = [
        "ts", "time", "timestamp", "@timestamp", "t", "@t", "level", "lvl", "severity", "severitytext", "msg", "message", "@m", "@mt",
        "event", "status", "status_code", "statuscode", "code", "duration", "duration_ms", "latency", "elapsed", "responsetime",
        "took", "method", "path", "url", "uri", "request", "request_id", "requestid", "req_id", "x-request-id", "x_request_id"
    ]

    /// The line's fields no place read, in the order met.
    static func otherFields(_ v: LineView, _ e: LogFormatEntry) -> [String: String] {
        var used = readNames
        for place in e.time + e.status + e.duration + e.method + e.path + e.level + e.message {
            if case .key(let k) = place { used.insert(k) }
        }
        var out: [String: String] = [:]
        var total = 0
        for k in v.order where out.count < maxFields && total < maxFieldBytes {
            let last = k.split(separator: ".").last.map(String.init) ?? k
            guard !used.contains(k), !used.contains(last), let value = v.flat[k], !value.text.isEmpty, value.text != "-" else { continue }
            let kept = value.text.count > maxFieldValue ? String(value.text.prefix(maxFieldValue)) + "…" : value.text
            out[String(k.prefix(64))] = kept
            total += kept.utf8.count + min(64, k.utf8.count)
        }
        return out
    }

    static func fill(_ out: inout ParsedLine, from g: ParsedLine) {
        if out.ts == nil { out.ts = g.ts }
        if out.level == nil { out.level = g.level }
        if out.status == nil { out.status = g.status }
        if out.durationMs == nil { (out.durationMs, out.durationUnit) = (g.durationMs, g.durationUnit) }
        if out.message == nil { out.message = g.message }
        if out.method == nil { out.method = g.method }
        if out.path == nil { out.path = g.path }
    }

    static func offset(of literal: String, in b: [UInt8]) -> Int? {
        let l = Array(literal.utf8)
        return b.withUnsafeBufferPointer { bp in
            l.withUnsafeBufferPointer { w in bp.baseAddress.flatMap { ByteSearch.find($0, bp.count, w) } }
        }
    }

    /// The index of the last token after the n-th that is a number with a decimal point (or a whole number).
    static func lastNumber(_ v: LineView, after n: Int, decimal: Bool) -> Int? {
        v.tokens.indices.dropFirst(n + 1).last { decimal ? isDecimal(v.tokens[$0]) : isInteger(v.tokens[$0]) }
    }

    /// The text at a place (a token's inner text, a member's value).
    static func text(_ place: FieldPlace, _ v: LineView) -> String? {
        switch place {
        case .key(let k): return v.flat[k]?.text
        case .token(let i): return v.token(i).map(\.text)
        case .lastDecimal(let n): return lastNumber(v, after: n, decimal: true).map { v.tokens[$0].text }
        case .lastInteger(let n): return lastNumber(v, after: n, decimal: false).map { v.tokens[$0].text }
        case .after(let lit): return offset(of: lit, in: v.bytes).map { String(decoding: v.bytes[($0 + lit.utf8.count)...], as: UTF8.self) }
        case .lastPart(let i):
            return v.token(i).flatMap { t in t.text.split(separator: "/").last.map { String($0.hasPrefix("+") ? $0.dropFirst() : $0) } }
        case .sum, .span, .leadingTime, .secondsAndNanos: return nil
        }
    }

    static func time(_ place: FieldPlace, _ v: LineView, unit: TimeUnit, options: LogReadOptions) -> Double? {
        if case .leadingTime = place {
            guard let (t, _, zoned) = leadingTime(v.bytes, options: options) else { return nil }
            return zoned ? t : localize(t, options)
        }
        if case .secondsAndNanos(let a, let b) = place {
            let ns = v.flat[b].flatMap { Double($0.text) } ?? 0
            guard let s = v.flat[a].flatMap({ Double($0.text) }), s.isFinite, ns.isFinite, ns >= 0, ns < 1e9
            else { return nil }
            let t = s + ns / 1e9
            return Timestamp.inRange(t) ? t : nil
        }
        let number: Bool
        switch place {
        case .key(let k): number = v.flat[k]?.number ?? false
        default: number = false
        }
        guard let s = text(place, v) else { return nil }
        return timeValue(s, number: number, unit: unit, options: options)
    }

    /// A time written as text or a number: digits in `unit` (by digit count for `.auto`), else RFC 3339 or
    /// the common log format; a time without a zone is taken in `--log-timezone`.
    static func timeValue(_ s: String, number: Bool, unit: TimeUnit, options: LogReadOptions) -> Double? {
        let t = trimmingWhitespace(s)
        if unit != .auto, !t.isEmpty, t.allSatisfy({ $0.isASCIIDigit || $0 == "." }), let d = Double(t), d.isFinite, d >= 0 {
            let secs = d * unit.milliseconds / 1000
            return Timestamp.inRange(secs) ? secs : nil
        }
        if let (v, zoned) = LogTime.parseZoned(t) { return zoned ? v : localize(v, options) }
        return nil
    }

    /// A time read without a zone, moved from `--log-timezone` to UTC.
    static func localize(_ t: Double, _ options: LogReadOptions) -> Double {
        guard let z = options.timezone else { return t }
        return t - Double(z.secondsFromGMT(for: Date(timeIntervalSince1970: t)))
    }

    /// The duration at `place`, in milliseconds, and the name of the unit it was read in.
    static func duration(_ place: FieldPlace, _ v: LineView, unit: TimeUnit, options: LogReadOptions) -> (ms: Double, unit: String)? {
        switch place {
        case .sum(let idx):
            var total = 0.0
            for i in idx {
                guard let t = v.token(i), let d = Double(t.text), d.isFinite, d >= 0 else { return nil }
                total += d
            }
            return durationMs(total, factor: unit.milliseconds).map { ($0, unitName(unit.milliseconds)) }
        case .span(let a, let b):
            guard let s = v.flat[a], let e = v.flat[b],
                let t0 = timeValue(s.text, number: s.number, unit: .auto, options: options),
                let t1 = timeValue(e.text, number: e.number, unit: .auto, options: options), t1 >= t0
            else { return nil }
            // Two times to the whole second tell no duration under a few seconds: the next place is read.
            if t0 == t0.rounded(.down), t1 == t1.rounded(.down), t1 - t0 < 5 { return nil }
            return durationMs(t1 - t0, factor: 1000).map { ($0, "from two times") }
        case .key(let name):
            guard let s = text(place, v) else { return nil }
            return named(durationRead(s, factor: (LineParser.unit(ofKey: name) ?? unit).milliseconds))
        case .lastDecimal(let n), .lastInteger(let n):
            let decimal = if case .lastDecimal = place { true } else { false }
            guard let k = lastNumber(v, after: n, decimal: decimal) else { return nil }
            // A unit word after the number (morgan's `:response-time ms`) says its unit.
            let factor = k + 1 < v.tokens.count ? RequestPhrase.unitFactor(Substring(v.tokens[k + 1].text)) : nil
            return named(durationRead(v.tokens[k].text, factor: factor ?? unit.milliseconds))
        default:
            guard let s = text(place, v) else { return nil }
            return named(durationRead(s, factor: unit.milliseconds))
        }
    }

    static func named(_ d: (ms: Double, factor: Double)?) -> (ms: Double, unit: String)? { d.map { ($0.ms, unitName($0.factor)) } }

    /// The unit a field's name states (`duration_ms`, `elapsed_us`, `latency_seconds`), or the one its
    /// convention fixes (OpenTelemetry's `http.server.request.duration` is in seconds); nil when the
    /// name tells none.
    static func unit(ofKey key: String) -> TimeUnit? {
        let k = key.lowercased()
        let last = k.split(separator: ".").last.map(String.init) ?? k
        let suffixes: [(String, TimeUnit)] = [
            ("_ms", .milliseconds), ("millis", .milliseconds), ("milliseconds", .milliseconds), ("_msec", .milliseconds),
            ("durationms", .milliseconds), ("_us", .microseconds), ("micros", .microseconds), ("microseconds", .microseconds),
            ("_usec", .microseconds), ("_ns", .nanoseconds), ("nanos", .nanoseconds), ("nanoseconds", .nanoseconds),
            ("_s", .seconds), ("_sec", .seconds), ("_secs", .seconds), ("seconds", .seconds)
        ]
        for (suffix, unit) in suffixes where last.hasSuffix(suffix) { return unit }
        if k.hasPrefix("attributes.http.") && k.hasSuffix(".duration") { return .seconds }
        return nil
    }

    /// A status field: 100–599; 0 (no response was written: the client went away, as Envoy and Caddy
    /// log it) reads as 499, nginx's name for a request its client closed.
    static func status(_ s: String) -> Int? {
        guard let n = Int(trimmingWhitespace(s)) else { return nil }
        if n == 0 { return 499 }
        return (100...599).contains(n) ? n : nil
    }

    static func method(_ s: String) -> String? {
        if let (m, _) = requestLine(s) { return m }
        let t = trimmingWhitespace(s)
        return !t.isEmpty && t.count <= 12 && t.allSatisfy({ $0 >= "A" && $0 <= "Z" }) ? t : nil
    }

    static func path(_ s: String) -> String? {
        if let (_, p) = requestLine(s) { return clip(p) }
        let t = trimmingWhitespace(s)
        if let (_, p) = requestLine(t) { return clip(p) }
        return t.isEmpty || t == "-" || t.contains(" ") ? nil : clip(t)
    }

    static let numericLevels: [String: String] = ["10": "trace", "20": "debug", "30": "info", "40": "warn", "50": "error", "60": "fatal"]
    static let letterLevels: [String: String] = ["D": "debug", "I": "info", "W": "warn", "E": "error", "F": "fatal"]

    static func level(_ s: String) -> String? {
        let t = s.trimmingCharacters(in: CharacterSet(charactersIn: "[](): "))
        if let n = numericLevels[t] { return n }
        if let l = letterLevels[t] { return l }
        let w = t.lowercased()
        return levelWords.contains(w) || w == "information" || w == "default" ? w : nil
    }

    /// Where the message of a plain line starts: after its leading time and level.
    static func plainMessageStart(_ v: LineView) -> Int? {
        guard let (_, len, _) = leadingTime(v.bytes, options: LogReadOptions()) else { return 0 }
        var i = len
        for t in v.tokens where t.start >= len {
            if level(t.text) != nil || t.text == "-" || t.text == ":" { i = t.end; continue }
            break
        }
        return i
    }

    // MARK: - Message patterns

    /// Matches `pattern` anywhere in `s`; fills the empty fields of `out` from its placeholders.
    static func match(_ pattern: String, in s: String, unit: TimeUnit, into out: inout ParsedLine) {
        // The pattern in parts: literals and `{name}`.
        var parts: [(literal: Bool, text: String)] = []
        var rest = Substring(pattern)
        while !rest.isEmpty {
            if rest.first == "{", let close = rest.firstIndex(of: "}") {
                parts.append((false, String(rest[rest.index(after: rest.startIndex)..<close])))
                rest = rest[rest.index(after: close)...]
            } else {
                let next = rest.firstIndex(of: "{") ?? rest.endIndex
                parts.append((true, String(rest[..<next])))
                rest = rest[next...]
            }
        }
        let b = Array(s.utf8)
        guard b.count < 1 << 16 else { return }
        for start in 0..<b.count where start == 0 || b[start - 1] == 0x20 || parts.first?.literal == true {
            var i = start
            var got: [String: String] = [:]
            var ok = true
            for (k, p) in parts.enumerated() {
                if p.literal {
                    let l = Array(p.text.utf8)
                    guard i + l.count <= b.count, Array(b[i..<(i + l.count)]) == l else { ok = false; break }
                    i += l.count
                } else if p.text == "*", k + 1 < parts.count {
                    // Any text, up to the next literal.
                    let l = Array(parts[k + 1].text.utf8)
                    var j = i
                    while j + l.count <= b.count, Array(b[j..<(j + l.count)]) != l { j += 1 }
                    guard j > i, j + l.count <= b.count else { ok = false; break }
                    i = j
                } else {
                    // A placeholder runs to the next literal's first byte, or to a space.
                    let stop: UInt8? = k + 1 < parts.count ? parts[k + 1].text.utf8.first : nil
                    let s0 = i
                    while i < b.count, b[i] != 0x20, stop == nil || b[i] != stop! { i += 1 }
                    guard i > s0 else { ok = false; break }
                    got[p.text] = String(decoding: b[s0..<i], as: UTF8.self)
                }
            }
            guard ok else { continue }
            if let v = got["status"] { guard let st = status(v) else { continue }; if out.status == nil { out.status = st } }
            if let v = got["duration"] {
                guard let d = durationRead(v, factor: unit.milliseconds) else { continue }
                if out.durationMs == nil { (out.durationMs, out.durationUnit) = (d.ms, unitName(d.factor)) }
            }
            if let v = got["method"], out.method == nil { out.method = method(v) }
            if let v = got["path"], out.path == nil { out.path = path(v) }
            return
        }
    }

    // MARK: - Leading times

    /// A time at the start of a line (after `[` or Ruby Logger's `I, [`): RFC 3339-like (zoned or not) or
    /// syslog's `Nov 29 10:15:02` (naive; the year that puts it nearest `referenceTime`). Returns the
    /// time, the bytes used (from the line start) and whether it carried a zone.
    static func leadingTime(_ b: [UInt8], options: LogReadOptions) -> (Double, Int, Bool)? {
        var i = 0
        if b.count > 4, b[0] >= UInt8(ascii: "A"), b[0] <= UInt8(ascii: "Z"), b[1] == UInt8(ascii: ","), b[2] == 0x20,
            b[3] == UInt8(ascii: "[")
        {
            i = 4
        } else if b.first == UInt8(ascii: "[") {
            i = 1
        }
        return b.withUnsafeBufferPointer { bp -> (Double, Int, Bool)? in
            guard let base = bp.baseAddress, i < bp.count else { return nil }
            if let (t, len, zoned) = LogTime.isoZoned(base + i, bp.count - i) { return (t, i + len, zoned) }
            if let (t, len) = LogTime.gin(base, bp.count) { return (t, len, false) }
            if let (t, len) = LogTime.syslog(base + i, bp.count - i, near: options.referenceTime) { return (t, i + len, false) }
            if let (t, len) = LogTime.ctime(base + i, bp.count - i) { return (t, i + len, false) }
            if i == 0, let (t, len) = LogTime.klog(base, bp.count, near: options.referenceTime) { return (t, len, false) }
            if i == 1, let (t, len) = LogTime.timeOfDay(base + 1, bp.count - 1, near: options.referenceTime) { return (t, 1 + len, false) }
            // A time of day with a fraction opening the line (Elixir's Logger: `12:55:03.849 [info] …`).
            if i == 0, let (t, len) = LogTime.timeOfDay(base, bp.count, near: options.referenceTime), len > 9, len < bp.count,
                base[len] == 0x20
            {
                return (t, len, false)
            }
            return nil
        }
    }

    // MARK: - Where the id sits

    /// Keys that name a request id.
    static let idKeys: Set<String> = ["requestid", "reqid", "xrequestid", "auditid", "correlationid", "rid"]

    /// Keys whose value is text someone outside the server controls (a message, a URL, a header).
    static func isFreeTextKey(_ path: String) -> Bool {
        let last = path.split(separator: ".").last.map(String.init) ?? path
        let k = normalize(last)
        for w in [
            "msg", "message", "event", "log", "line", "raw", "body", "stringvalue", "textpayload", "url", "uri", "path", "query",
            "args", "referer", "referrer", "useragent", "agent", "request", "requesturl", "requesturi", "target", "error", "err",
            "stack", "exception", "detail", "details", "reason"
        ] where k == w || k.hasSuffix(w) && w.count >= 5 {
            return true
        }
        return false
    }

    /// The ids that sit in a field of their own (a member or pair whose whole value is the id; a token
    /// that is only the id, outside the request line, referer, user agent and message; a `[tag]` leading
    /// the message) — not inside free text.
    static func fieldIDs(_ v: LineView, _ e: LogFormatEntry, messageAt: Int?, embedded: [LineView] = []) -> [RequestID] {
        var out: [RequestID] = []
        func add(_ s: String) {
            let t = trimmingWhitespace(s)
            if t.utf8.count == 40, let id = RequestID(t.lowercased().hasPrefix("req_") ? "req_" + t.dropFirst(4) : t), !out.contains(id) {
                out.append(id)
            }
        }
        if v.isJSON {
            for k in v.order where !isFreeTextKey(k) { if let val = v.flat[k] { add(val.text) } }
            // A shipper's envelope: the line it carries is the server's own.
            for k in ["line", "log"] {
                if let inner = v.flat[k]?.text, inner.hasPrefix("{") {
                    let iv = LineView(Array(inner.utf8), focus: nil)
                    for ik in iv.order where !isFreeTextKey(ik) { if let val = iv.flat[ik] { add(val.text) } }
                }
            }
            return out
        }
        for o in embedded { for k in o.order where !isFreeTextKey(k) { if let val = o.flat[k] { add(val.text) } } }
        // A pair inside a message counts when its key names a request id (`request_id=`, klog's `audit-ID=`).
        for p in v.pairs
        where !isFreeTextKey(p.key.lowercased()) && (messageAt.map { p.at < $0 } ?? true || idKeys.contains(normalize(p.key))) {
            add(p.value)
        }
        let message = messageAt ?? Int.max
        var leadingTags = true
        for (k, t) in v.tokens.enumerated() {
            if e.freeText.contains(k) || e.freeText.contains(k - v.tokens.count) { continue }
            if t.start >= message {
                // Only `[tags]` that lead the message (Rails' `[req_…] Completed`).
                guard leadingTags, t.kind == .bracket else { leadingTags = false; continue }
            }
            add(t.text.hasPrefix("{") && t.text.hasSuffix("}") ? String(t.text.dropFirst().dropLast()) : t.text)
        }
        return out
    }
}

extension Character {
    /// `0`–`9` only (not other scripts' digits).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
