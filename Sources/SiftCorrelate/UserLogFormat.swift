import Foundation
import SiftCore

/// A log format a team describes itself, in lnav's format-file form (which many teams already keep):
///
/// ```json
/// {"acme_gateway": {
///    "title": "ACME gateway",
///    "regex": {"std": {"pattern": "^(?<timestamp>\\S+ \\S+) (?<level>\\w+) (?<request_id>req_\\S+) (?<method>[A-Z]+) (?<path>\\S+) (?<status>\\d{3}) (?<took_ms>\\d+)$"}},
///    "timestamp-format": ["%Y-%m-%d %H:%M:%S.%L"],
///    "level-field": "level", "opid-field": "request_id", "body-field": "body"}}
/// ```
///
/// Regular expressions with named captures (PCRE's `(?P<name>…)` too), or `"json": true` with
/// `timestamp-field`. A capture or JSON member plays a part by its name: the time (`timestamp`,
/// `time`, `ts`), the status (`status`, `sc-status`, `status_code`, `code`), the duration (`duration`,
/// `latency`, `elapsed`, `request_time`, `time-taken`, `took`; the unit its name tells — `_ms`,
/// `_us`, `_s` — else `"pbsift-duration-unit"`, else milliseconds), the method, the path, the level
/// (`level-field`), the message (`body-field`) and the request id (`opid-field`; any capture whose
/// whole value is an id counts as a field).
public struct UserLogFormat: Sendable, Equatable {
    public let name: String
    public let title: String
    /// The compiled expressions, in the order written (a line is read by the first that matches).
    let patterns: [Pattern]
    /// `"json": true`: JSON lines with `timestampField`.
    let json: Bool
    let timestampField: String?
    let timestampFormats: [String]
    let levelField: String
    let bodyField: String
    let idField: String?
    let durationUnit: TimeUnit

    struct Pattern: @unchecked Sendable, Equatable {
        let source: String
        let regex: NSRegularExpression
        let names: [String]
        static func == (a: Pattern, b: Pattern) -> Bool { a.source == b.source }
    }

    public static func == (a: UserLogFormat, b: UserLogFormat) -> Bool {
        a.name == b.name && a.patterns == b.patterns && a.json == b.json && a.timestampField == b.timestampField
    }

    /// A definition that cannot be used: the format's name and why.
    public struct DefinitionError: Error, CustomStringConvertible {
        public let format: String
        public let reason: String
        public var description: String { "log format '\(format)': \(reason)" }
    }

    /// Every format of an lnav format file (or of `.pbsift.json`'s `logFormats`): an object from names
    /// to definitions. `$schema` and other keys starting with `$` are skipped.
    public static func load(_ root: JSONValue) throws -> [UserLogFormat] {
        guard root.isObject else { throw DefinitionError(format: "(file)", reason: "the top level must be an object of format names") }
        var out: [UserLogFormat] = []
        for (name, def) in root.members where !name.hasPrefix("$") {
            out.append(try UserLogFormat(name: name, definition: def))
        }
        guard !out.isEmpty else { throw DefinitionError(format: "(file)", reason: "no format is defined") }
        return out
    }

    init(name: String, definition def: JSONValue) throws {
        func fail(_ why: String) -> DefinitionError { DefinitionError(format: name, reason: why) }
        guard def.isObject else { throw fail("the definition must be an object") }
        guard !name.isEmpty, name.utf8.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) else {
            throw fail("a name is letters, digits, '_', '-' and '.' (at most 64)")
        }
        guard LogCatalogue.entry(named: name) == nil else { throw fail("the name of a built-in format") }
        self.name = name
        title = def["title"]?.string ?? name
        json = def["json"]?.kind == .true
        timestampField = def["timestamp-field"]?.string
        timestampFormats = def["timestamp-format"].map { v in v.elements.compactMap(\.string) } ?? []
        levelField = def["level-field"]?.string ?? "level"
        bodyField = def["body-field"]?.string ?? "body"
        idField = def["opid-field"]?.string
        if let u = def["pbsift-duration-unit"]?.string {
            guard let unit = TimeUnit(rawValue: u == "us" ? "µs" : u), unit != .auto else {
                throw fail("pbsift-duration-unit is s, ms, us or ns")
            }
            durationUnit = unit
        } else {
            durationUnit = .milliseconds
        }
        var patterns: [Pattern] = []
        if let regexes = def["regex"] {
            guard regexes.isObject else { throw fail("'regex' must be an object of named patterns") }
            for (key, r) in regexes.members {
                guard let source = r["pattern"]?.string, !source.isEmpty else { throw fail("regex '\(key)' has no pattern") }
                guard source.utf8.count <= 4096 else { throw fail("regex '\(key)' is longer than 4 KiB") }
                // ICU names groups with letters and digits only: each `(?<name>` becomes `(?<gN>`.
                let (icu, names) = Self.renamingCaptures(source.replacingOccurrences(of: "(?P<", with: "(?<"))
                let regex: NSRegularExpression
                do { regex = try NSRegularExpression(pattern: icu) } catch { throw fail("regex '\(key)' does not compile") }
                guard !names.isEmpty else { throw fail("regex '\(key)' names no capture") }
                patterns.append(Pattern(source: source, regex: regex, names: names))
            }
        }
        self.patterns = patterns
        if json {
            guard timestampField != nil else { throw fail("a JSON format needs timestamp-field") }
        } else if patterns.isEmpty {
            throw fail("a format needs 'regex' (or \"json\": true)")
        }
    }

    /// The pattern with each `(?<name>` group renamed `(?<gN>` (N its order), and the names in order.
    static func renamingCaptures(_ pattern: String) -> (String, [String]) {
        var names: [String] = []
        var out: [UInt8] = []
        let b = Array(pattern.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "\\"), i + 1 < b.count {
                out += [b[i], b[i + 1]]
                i += 2
                continue
            }
            if i + 3 < b.count, b[i] == UInt8(ascii: "("), b[i + 1] == UInt8(ascii: "?"), b[i + 2] == UInt8(ascii: "<"),
                b[i + 3] != UInt8(ascii: "="), b[i + 3] != UInt8(ascii: "!"), let close = b[(i + 3)...].firstIndex(of: UInt8(ascii: ">"))
            {
                out += Array("(?<g\(names.count)>".utf8)
                names.append(String(decoding: b[(i + 3)..<close], as: UTF8.self))
                i = close + 1
                continue
            }
            out.append(b[i])
            i += 1
        }
        return (String(decoding: out, as: UTF8.self), names)
    }

    // MARK: - Parts by name

    enum Part { case time, status, duration, method, path }

    static func part(of name: String) -> Part? {
        let k = LineParser.normalize(name)
        if ["timestamp", "time", "ts", "datetime", "date"].contains(k) { return .time }
        if ["status", "statuscode", "scstatus", "code", "httpstatus", "responsecode"].contains(k) { return .status }
        if ["method", "csmethod", "verb", "requestmethod", "httpmethod"].contains(k) { return .method }
        if ["path", "uri", "url", "csuristem", "requestpath", "requesturi", "target"].contains(k) { return .path }
        for w in ["duration", "latency", "elapsed", "requesttime", "responsetime", "timetaken", "took", "rt"]
        where k == w || (k.hasPrefix(w) && LineParser.unit(ofKey: name) != nil) {
            return .duration
        }
        return nil
    }

    // MARK: - Reading a line

    /// The line read by this format, or nil when it does not have its shape.
    func read(_ bytes: [UInt8], options: LogReadOptions) -> ParsedLine? {
        var values: [(String, String)] = []
        if json {
            guard bytes.first == UInt8(ascii: "{"), let doc = try? JSONDocument(bytes: bytes, maxDepth: 64), doc.root.isObject,
                let tf = timestampField, doc.root[tf] != nil
            else { return nil }
            for (k, v) in doc.root.members.prefix(256) {
                if let s = v.string { values.append((k, s)) } else if v.kind == .number { values.append((k, v.rawText)) }
            }
        } else {
            let text = String(decoding: bytes, as: UTF8.self)
            let ns = text as NSString
            let range = NSRange(location: 0, length: ns.length)
            guard
                let (m, p) = patterns.lazy.compactMap({ p in p.regex.firstMatch(in: text, range: range).map { ($0, p) } }).first
            else { return nil }
            for (k, n) in p.names.enumerated() {
                let r = m.range(withName: "g\(k)")
                guard r.location != NSNotFound else { continue }
                values.append((n, ns.substring(with: r)))
            }
        }
        var out = ParsedLine(format: LogFormat(name))
        for (k, v) in values {
            if k == levelField { out.level = LineParser.level(v) ?? v.lowercased() }
            if k == bodyField || (json && k == bodyField) { out.message = LineParser.clip(v) }
            switch Self.part(of: k) {
            case .time where out.ts == nil || k == timestampField: out.ts = time(v, options)
            case .status: out.status = out.status ?? LineParser.status(v)
            case .duration:
                let unit = LineParser.unit(ofKey: k) ?? durationUnit
                if out.durationMs == nil, let d = LineParser.durationRead(v, factor: unit.milliseconds) {
                    (out.durationMs, out.durationUnit) = (d.ms, LineParser.unitName(d.factor))
                }
            case .method: out.method = out.method ?? LineParser.method(v)
            case .path: out.path = out.path ?? LineParser.path(v)
            default: break
            }
            if k == timestampField { out.ts = time(v, options) }
            if k != bodyField, let id = RequestID(trimmingWhitespace(v)), !out.fieldIDs.contains(id) { out.fieldIDs.append(id) }
        }
        return out
    }

    /// A time as the generic reader knows it, else by the definition's `timestamp-format`.
    func time(_ s: String, _ options: LogReadOptions) -> Double? {
        if let (t, zoned) = LogTime.parseZoned(s) { return zoned ? t : LineParser.localize(t, options) }
        for f in timestampFormats {
            if let (t, zoned) = Strftime.parse(s, format: f) { return zoned ? t : LineParser.localize(t, options) }
        }
        return nil
    }
}

/// The subset of strftime that log formats use to describe their times: `%Y %y %m %d %e %H %M %S %b
/// %B %j %T %F %z %Z %f %L %N %s %p %I %a %A %%`, literal text between.
enum Strftime {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The time and whether it carried a zone; nil when `s` does not have the format's shape in full.
    static func parse(_ s: String, format: String) -> (Double, Bool)? {
        let b = Array(s.utf8)
        let f = Array(format.utf8)
        var i = 0
        var year = 1970
        var month = 1
        var day = 1
        var hour = 0
        var minute = 0
        var second = 0
        var frac = 0.0
        var offset: Int?
        var pm: Bool?
        var epoch: Double?
        func number(_ maxLen: Int) -> Int? {
            while i < b.count, b[i] == 0x20, maxLen < 9 { i += 1 }
            let s0 = i
            while i < b.count, i - s0 < maxLen, b[i] &- 0x30 < 10 { i += 1 }
            guard i > s0 else { return nil }
            return Int(String(decoding: b[s0..<i], as: UTF8.self))
        }
        func word() -> String {
            let s0 = i
            while i < b.count, (b[i] | 0x20) >= UInt8(ascii: "a"), (b[i] | 0x20) <= UInt8(ascii: "z") { i += 1 }
            return String(decoding: b[s0..<i], as: UTF8.self).lowercased()
        }
        var k = 0
        while k < f.count {
            if f[k] != UInt8(ascii: "%") || k + 1 >= f.count {
                guard i < b.count, b[i] == f[k] else { return nil }
                i += 1
                k += 1
                continue
            }
            let c = f[k + 1]
            k += 2
            switch c {
            case UInt8(ascii: "Y"): guard let v = number(4) else { return nil }; year = v
            case UInt8(ascii: "y"): guard let v = number(2) else { return nil }; year = 2000 + v
            case UInt8(ascii: "m"): guard let v = number(2) else { return nil }; month = v
            case UInt8(ascii: "d"), UInt8(ascii: "e"): guard let v = number(2) else { return nil }; day = v
            case UInt8(ascii: "H"), UInt8(ascii: "I"): guard let v = number(2) else { return nil }; hour = v
            case UInt8(ascii: "M"): guard let v = number(2) else { return nil }; minute = v
            case UInt8(ascii: "S"): guard let v = number(2) else { return nil }; second = v
            case UInt8(ascii: "j"): guard let v = number(3), v >= 1, v <= 366 else { return nil }; month = 1; day = v
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "h"):
                let w = word()
                guard w.count >= 3, let m = months.firstIndex(of: String(w.prefix(3))) else { return nil }
                month = m + 1
            case UInt8(ascii: "a"), UInt8(ascii: "A"): guard !word().isEmpty else { return nil }
            case UInt8(ascii: "p"):
                let w = word()
                guard w == "am" || w == "pm" else { return nil }
                pm = w == "pm"
            case UInt8(ascii: "T"):
                guard let h = number(2), i < b.count, b[i] == 0x3A else { return nil }
                i += 1
                guard let m = number(2), i < b.count, b[i] == 0x3A else { return nil }
                i += 1
                guard let sec = number(2) else { return nil }
                (hour, minute, second) = (h, m, sec)
            case UInt8(ascii: "F"):
                guard let y = number(4), i < b.count, b[i] == 0x2D else { return nil }
                i += 1
                guard let m = number(2), i < b.count, b[i] == 0x2D else { return nil }
                i += 1
                guard let d = number(2) else { return nil }
                (year, month, day) = (y, m, d)
            case UInt8(ascii: "f"), UInt8(ascii: "L"), UInt8(ascii: "N"):
                let s0 = i
                while i < b.count, i - s0 < 9, b[i] &- 0x30 < 10 { i += 1 }
                guard i > s0 else { return nil }
                frac = Double("0." + String(decoding: b[s0..<i], as: UTF8.self)) ?? 0
            case UInt8(ascii: "z"):
                guard i < b.count else { return nil }
                if b[i] == UInt8(ascii: "Z") {
                    offset = 0
                    i += 1
                } else {
                    let rest = Array(b[i...])
                    guard let (off, len) = rest.withUnsafeBufferPointer({ p in LogTime.zone(p.baseAddress!, p.count) }) else { return nil }
                    offset = off
                    i += len
                }
            case UInt8(ascii: "Z"):
                let w = word()
                guard w == "utc" || w == "gmt" || w == "z" else { return nil }
                offset = 0
            case UInt8(ascii: "s"):
                guard let v = number(12) else { return nil }
                epoch = Double(v)
            case UInt8(ascii: "%"):
                guard i < b.count, b[i] == UInt8(ascii: "%") else { return nil }
                i += 1
            default:
                return nil
            }
        }
        guard i == b.count else { return nil }
        if let e = epoch { return Timestamp.inRange(e + frac) ? (e + frac, true) : nil }
        if let p = pm { hour = hour % 12 + (p ? 12 : 0) }
        guard (1...12).contains(month), (1...366).contains(day), hour <= 23, minute <= 59, second <= 60, (1...9999).contains(year)
        else { return nil }
        let days = Timestamp.daysFromCivil(year, month, 1) + day - 1
        let t = Double(days * 86400 + hour * 3600 + minute * 60 + second - (offset ?? 0)) + frac
        return Timestamp.inRange(t) ? (t, offset != nil) : nil
    }
}
