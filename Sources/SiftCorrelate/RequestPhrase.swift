import Foundation

/// A request told in words, as frameworks print it when no format fixes the fields:
/// `POST /v1/auth/token 200 101.000 ms - 67` (morgan `dev`), `HTTP POST /v1/x responded 200 in 101.0 ms`
/// (Serilog), `"POST http://h/v1/x HTTP/1.1" from 203.0.113.7:52113 - 200 67B in 101.4ms` (chi),
/// `POST /v1/x => generated 67 bytes in 101 msecs (HTTP/1.1 200)` (uWSGI), `GET /v1/x -> 200 in 12 ms`.
/// Read only what a line leaves empty, and only when the words hold a request (a method and a path)
/// or a status word before the number.
enum RequestPhrase {
    struct Reading: Equatable {
        var method: String?
        var path: String?
        var status: Int?
        var durationMs: Double?
        var durationUnit: String?
    }

    static let methods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "CONNECT", "TRACE"]
    /// Words after which a number is the response status.
    static let statusWords: Set<String> = [
        "responded", "->", "status", "status:", "resp", "returned", "code", "code:", "=>", "completed", "sent"
    ]
    /// Words after which a number with a unit is the request's duration.
    static let durationWords: Set<String> = [
        "in", "took", "latency", "latency:", "elapsed", "elapsed:", "duration", "duration:", "time:", "after"
    ]

    /// Milliseconds per unit of a unit word (`LineParser.durationUnits`).
    static func unitFactor(_ w: Substring) -> Double? { LineParser.durationUnits.first { $0.0 == w }?.1 }

    /// `101ms`, `0.101s`, `101.4000ms` as milliseconds.
    static func suffixed(_ w: Substring) -> Double? { suffixedRead(w)?.ms }

    /// As `suffixed`, with the milliseconds per unit written.
    static func suffixedRead(_ w: Substring) -> (ms: Double, factor: Double)? {
        guard let first = w.first, first.isASCIIDigit else { return nil }
        let numberEnd = w.firstIndex { !($0.isASCIIDigit || $0 == ".") } ?? w.endIndex
        guard numberEnd != w.endIndex, let f = unitFactor(w[numberEnd...]), let d = Double(w[..<numberEnd]) else { return nil }
        return LineParser.durationMs(d, factor: f).map { ($0, f) }
    }

    /// Reads `text` (at most its first 2 KiB).
    static func read(_ text: Substring) -> Reading? {
        let words = text.prefix(2048).split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix(96).map { w -> Substring in
            var w = w
            while let c = w.first, "\"'([{<".contains(c) { w = w.dropFirst() }
            while let c = w.last, "\"')]}>,;".contains(c) { w = w.dropLast() }
            return w
        }
        var r = Reading()
        var afterPath: Int?
        for (i, w) in words.enumerated() where methods.contains(String(w)) && i + 1 < words.count {
            let p = words[i + 1]
            if p.hasPrefix("/") || p.hasPrefix("http://") || p.hasPrefix("https://") {
                r.method = String(w)
                r.path = String(p)
                afterPath = i + 2
                break
            }
        }
        var statusAt: Int?
        for (i, w) in words.enumerated() where w.count == 3 && w.allSatisfy(\.isASCIIDigit) {
            guard let n = Int(w), (100...599).contains(n) else { continue }
            let prev = i > 0 ? words[i - 1].lowercased() : ""
            // `67 bytes`, `200 B`: a size, not a status; `101 msecs`: a duration.
            if i + 1 < words.count, ["b", "bytes", "byte"].contains(words[i + 1].lowercased()) || unitFactor(words[i + 1]) != nil {
                continue
            }
            let nearPath = afterPath.map { i >= $0 && i - $0 < 6 } ?? false
            if nearPath || statusWords.contains(prev) || prev.hasPrefix("http/") {
                r.status = n
                statusAt = i
                break
            }
        }
        guard r.method != nil || statusAt != nil else { return nil }
        // A duration belongs to a completed request: without a status (`retrying GET /v1/x in 5s`) none is read.
        guard statusAt != nil else { return r }
        // The duration: after a duration word, else the only one after the path or status.
        var candidates: [(at: Int, ms: Double, factor: Double, named: Bool)] = []
        for (i, w) in words.enumerated() {
            var read = suffixedRead(w)
            if read == nil, i + 1 < words.count, let f = unitFactor(words[i + 1]), w.first?.isASCIIDigit == true, let d = Double(w) {
                read = LineParser.durationMs(d, factor: f).map { ($0, f) }
            }
            guard let value = read else { continue }
            let prev = i > 0 ? words[i - 1].lowercased() : ""
            candidates.append((i, value.ms, value.factor, durationWords.contains(prev)))
        }
        let from = statusAt ?? afterPath ?? 0
        let after = candidates.filter { $0.at >= from }
        if let pick = candidates.first(where: \.named) ?? (after.count == 1 ? after[0] : nil) {
            r.durationMs = pick.ms
            r.durationUnit = LineParser.unitName(pick.factor)
        }
        return r
    }
}
