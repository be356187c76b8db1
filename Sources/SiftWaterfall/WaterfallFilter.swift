import Foundation
import SiftCore

/// Which requests a waterfall shows. Every set criterion must hold; `slowest` applies last.
public struct WaterfallFilter: Sendable, Equatable {
    /// A request id (`req_…`), a record id (`rec_…`) or a `seq` number.
    public var request: String?
    /// Keep only the N slowest (by `elapsedMs`), shown in timeline order.
    public var slowest: Int?
    /// Keep requests that took at least this many milliseconds.
    public var minDurationMs: Double?
    /// Keep requests of this `category` (`auth`, `call`, `app`, …).
    public var category: String?
    /// Keep requests of this `source`: `sdk` or `app`.
    public var source: String?

    /// A filter; nil criteria are not applied.
    public init(
        request: String? = nil, slowest: Int? = nil, minDurationMs: Double? = nil, category: String? = nil,
        source: String? = nil
    ) {
        self.request = request
        self.slowest = slowest
        self.minDurationMs = minDurationMs
        self.category = category
        self.source = source
    }

    /// Whether no criterion is set.
    public var isEmpty: Bool {
        request == nil && slowest == nil && minDurationMs == nil && category == nil && source == nil
    }

    /// Whether one request passes every criterion except `slowest`.
    public func matches(_ r: WaterfallRequest) -> Bool {
        if let q = request {
            let bySeq = Int(q).map { $0 == r.seq } ?? false
            if !(bySeq || r.requestId == q || r.recordId == q) { return false }
        }
        if let c = category, r.category != c { return false }
        if let s = source, r.source != s { return false }
        if let m = minDurationMs, r.elapsedMs < m { return false }
        return true
    }

    /// The sessions with only the matching requests; sessions left without a request are dropped
    /// (all sessions are kept when the filter is empty).
    public func apply(_ sessions: [WaterfallSession]) -> [WaterfallSession] {
        if isEmpty { return sessions }
        var out = sessions.map { s -> WaterfallSession in
            var s = s
            s.requests = s.requests.filter(matches)
            return s
        }
        if let n = slowest {
            var all: [(s: Int, r: Int, ms: Double)] = []
            for (si, s) in out.enumerated() {
                for (ri, r) in s.requests.enumerated() { all.append((si, ri, r.elapsedMs)) }
            }
            all.sort { a, b in
                if a.ms != b.ms { return a.ms > b.ms }
                if a.s != b.s { return a.s < b.s }
                return a.r < b.r
            }
            var keep: Set<Int64> = []
            for e in all.prefix(max(0, n)) { keep.insert(Int64(e.s) << 32 | Int64(e.r)) }
            for si in out.indices {
                out[si].requests = out[si].requests.enumerated().filter { keep.contains(Int64(si) << 32 | Int64($0.offset)) }.map(\.element)
            }
        }
        return out.filter { !$0.requests.isEmpty }
    }

    /// The findings that concern the kept requests (all findings when the filter is empty).
    /// Findings without a record (session-level notices) are kept.
    public func apply(_ findings: [Finding], kept sessions: [WaterfallSession]) -> [Finding] {
        if isEmpty { return findings }
        var keys: Set<String> = []
        for s in sessions {
            for r in s.requests { keys.insert("\(s.input)\u{0}\(s.file)\u{0}\(r.line)") }
        }
        return findings.filter { f in
            guard let line = f.line else { return f.seq == nil }
            return keys.contains("\(f.input)\u{0}\(f.file ?? "")\u{0}\(line)")
        }
    }
}
