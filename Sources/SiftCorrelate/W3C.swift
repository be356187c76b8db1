import Foundation
import SiftCore

/// The W3C extended log format (IIS, Amazon CloudFront's standard logs): a `#Fields:` directive names
/// the columns of the lines after it, separated by spaces (IIS) or tabs (CloudFront).
///
/// ```
/// #Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken cs(X-Request-Id)
/// 2026-11-29 12:55:03 10.0.3.12 POST /v1/auth/token - 443 - 203.0.113.7 Palbe/3.1.0 - 200 0 0 101 req_…
/// ```
///
/// `date` and `time` are UTC; `time-taken` is milliseconds as IIS writes it, seconds when written with
/// a decimal point (CloudFront). Any column whose whole value is a request id is a field of the line.
enum W3C {
    static let name = "w3c"

    /// The column names of a `#Fields:` directive line, or nil for any other line.
    static func directive(_ line: [UInt8]) -> [String]? {
        let prefix = Array("#Fields:".utf8)
        guard line.count > prefix.count, Array(line.prefix(prefix.count)) == prefix else { return nil }
        let names = String(decoding: line[prefix.count...], as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).prefix(128).map { $0.lowercased() }
        return names.isEmpty ? nil : names
    }

    /// Each `#Fields:` directive at a line start in `base[0..<count]`: its offset and its columns.
    static func directives(_ base: UnsafePointer<UInt8>, _ count: Int) -> [(at: Int, fields: [String])] {
        let needle = Array("#Fields:".utf8)
        var out: [(at: Int, fields: [String])] = []
        var pos = 0
        while pos < count, out.count < 1024 {
            guard let hit = needle.withUnsafeBufferPointer({ ByteSearch.find(base + pos, count - pos, $0) }) else { break }
            let at = pos + hit
            let end = ByteSearch.index(of: 0x0A, base + at, count - at).map { at + $0 } ?? count
            if at == 0 || base[at - 1] == 0x0A, let fields = directive(Array(UnsafeBufferPointer(start: base + at, count: end - at))) {
                out.append((at, fields))
            }
            pos = at + needle.count
        }
        return out
    }

    /// The line read through its file's columns; nil for a directive or a line with another count of columns.
    static func read(_ bytes: [UInt8], fields: [String], options: LogReadOptions) -> ParsedLine? {
        guard let first = bytes.first, first != UInt8(ascii: "#") else { return nil }
        let tabbed = bytes.contains(0x09)
        let values = String(decoding: bytes, as: UTF8.self)
            .split(separator: tabbed ? "\t" : " ", omittingEmptySubsequences: !tabbed).prefix(129).map(String.init)
        guard values.count == fields.count else { return nil }
        var out = ParsedLine(format: LogFormat(name))
        var date: String?
        var time: String?
        for (f, v) in zip(fields, values) where v != "-" && !v.isEmpty {
            switch f {
            case "date": date = v
            case "time": time = v
            case "sc-status": out.status = LineParser.status(v)
            case "cs-method": out.method = LineParser.method(v)
            case "cs-uri-stem": out.path = LineParser.path(v)
            case "time-taken":
                if let d = LineParser.durationRead(v, factor: v.contains(".") ? 1000 : 1) {
                    (out.durationMs, out.durationUnit) = (d.ms, LineParser.unitName(d.factor))
                }
            default:
                if let id = RequestID(trimmingWhitespace(v)), !out.fieldIDs.contains(id) { out.fieldIDs.append(id) }
            }
        }
        if let d = date, let t = time {
            out.ts = LogTime.parseZoned(d + "T" + t + "Z")?.0
        }
        return out
    }
}
