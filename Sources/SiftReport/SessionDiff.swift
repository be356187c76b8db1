import Foundation
import SiftCore
import SiftWaterfall

/// What `pbsift diff` compares of one side (an export, or one session of it): each network request
/// by its route, and the error logs by their wording. Bounded: at most `maxRequests` requests and
/// `maxTemplates` distinct error wordings are kept (the rest are counted).
public final class DiffCollector: Analysis, @unchecked Sendable {
    public struct Request: Sendable {
        /// `POST api.example.test/v1/orders/{id}`: the method, host and route template.
        public var route: String
        public var seq: Int?
        public var status: Int?
        public var failed: Bool
        public var outcome: String
        /// Milliseconds: dns, connect, tls, waiting, download, total.
        public var phases: [String: Double]
        public var requestHeaders: Set<String>
        public var responseHeaders: Set<String>
        public var requestKeys: Set<String>
        public var responseKeys: Set<String>
    }

    public static let maxRequests = 50_000
    public static let maxTemplates = 2_000
    public private(set) var requests: [Request] = []
    public private(set) var droppedRequests = 0
    /// Error and critical log wordings (numbers and ids folded), with how often each occurs.
    public private(set) var errorLogs: [String: Int] = [:]
    public private(set) var droppedTemplates = 0

    public init() {}

    public func record(_ record: Record, session: SessionContext) {
        switch record.type {
        case .network: network(record)
        case .log:
            guard let level = record.json["level"]?.string, ["error", "critical"].contains(level) else { return }
            let message = record.json["message"]?.string ?? record.json["label"]?.string ?? ""
            let t = "\(level): " + DiffCollector.template(message)
            if errorLogs[t] != nil || errorLogs.count < DiffCollector.maxTemplates {
                errorLogs[t, default: 0] += 1
            } else {
                droppedTemplates += 1
            }
        default: return
        }
    }

    func network(_ r: Record) {
        guard requests.count < DiffCollector.maxRequests else {
            droppedRequests += 1
            return
        }
        let j = r.json
        let method = j["method"]?.string ?? "GET"
        let url = j["url"]?.string ?? ""
        let status = j["statusCode"]?.int
        let failed = NetworkRecord.failed(r)
        var outcome = status.map(String.init) ?? (j["state"]?.string ?? "no response")
        if status == nil, let e = j["error", "code"]?.int { outcome = "error \(e)" }
        var phases: [String: Double] = [:]
        if let tx = j["metrics", "transactions"]?.elements.last {
            func t(_ k: String) -> Double? { tx[k]?.string.flatMap(Timestamp.parse) }
            func span(_ name: String, _ a: String, _ b: String) {
                if let x = t(a), let y = t(b), y >= x, y - x < 86400 { phases[name] = (y - x) * 1000 }
            }
            span("dns", "domainLookupStart", "domainLookupEnd")
            span("connect", "connectStart", "connectEnd")
            span("tls", "secureConnectionStart", "secureConnectionEnd")
            span("waiting", "requestEnd", "responseStart")
            span("download", "responseStart", "responseEnd")
        }
        if let d = j["duration"]?.double, d.isFinite, d >= 0, d < 86400 { phases["total"] = d * 1000 }
        requests.append(
            Request(
                route: method + " " + DiffCollector.route(url), seq: r.seq, status: status, failed: failed, outcome: outcome,
                phases: phases,
                requestHeaders: DiffCollector.headerNames(j["request", "headers"]),
                responseHeaders: DiffCollector.headerNames(j["response", "headers"]),
                requestKeys: DiffCollector.bodyKeys(j["request", "body"]),
                responseKeys: DiffCollector.bodyKeys(j["response", "body"])))
    }

    static func headerNames(_ v: JSONValue?) -> Set<String> {
        var out: Set<String> = []
        for h in (v?.elements ?? []).prefix(256) { if let n = h["name"]?.string { out.insert(n.lowercased()) } }
        return out
    }

    /// A JSON body's member paths, two levels deep (`error`, `error.code`), at most 256.
    static func bodyKeys(_ body: JSONValue?) -> Set<String> {
        guard let text = body?["text"]?.string, text.hasPrefix("{"), text.utf8.count <= 1 << 20,
            let doc = try? JSONDocument(string: text, maxDepth: 32), doc.root.isObject
        else { return [] }
        var out: Set<String> = []
        for (k, v) in doc.root.members.prefix(128) {
            out.insert(k)
            if v.isObject { for (k2, _) in v.members.prefix(16) { out.insert(k + "." + k2) } }
        }
        return out
    }

    /// `https://api.example.test/v1/orders/8812?x=1` → `api.example.test/v1/orders/{n}`: the user,
    /// password and query dropped, and segments that are numbers, UUIDs, long hex or ids with digits folded.
    public static func route(_ url: String) -> String {
        // The host and path as the waterfall shows them (no user and password, no query).
        let hostAndPath = WaterfallURL.hostAndPath(url) ?? String(url.prefix { $0 != "?" && $0 != "#" })
        let parts = hostAndPath.split(separator: "/", omittingEmptySubsequences: false).prefix(32)
        return parts.enumerated().map { i, p in i == 0 ? String(p) : fold(p) }.joined(separator: "/")
    }

    static func fold(_ segment: Substring) -> String {
        let s = segment
        if s.isEmpty { return "" }
        if s.allSatisfy(\.isNumber) { return "{n}" }
        let hexish = s.filter { $0 != "-" }
        if hexish.count >= 16, hexish.allSatisfy(\.isHexDigit) { return "{id}" }
        let digits = s.filter(\.isNumber).count
        if s.count >= 8, digits >= 2, s.contains(where: \.isLetter) || s.contains("_") { return "{id}" }
        return String(s)
    }

    /// A log message with its numbers and ids folded (`after 5000ms` → `after {n}ms`, `usr_8812ab3f` →
    /// `{id}`), at most 200 characters.
    public static func template(_ message: String) -> String {
        let words = message.prefix(400).split(separator: " ", omittingEmptySubsequences: false).map { w -> String in
            let digits = w.filter(\.isNumber).count
            if w.count >= 8, digits >= 2, w.contains(where: \.isLetter) { return "{id}" }
            var out = ""
            var inNumber = false
            for c in w {
                if c.isNumber {
                    if !inNumber { out += "{n}" }
                    inNumber = true
                } else {
                    out.append(c)
                    inNumber = false
                }
            }
            return out
        }
        return String(words.joined(separator: " ").prefix(200))
    }
}

/// Two sides compared: what a support engineer holds against a run that worked.
public struct SessionDiff: Sendable {
    public struct Change: Sendable {
        public var kind: String
        public var route: String
        public var text: String
    }

    /// The differences, in the order a report lists them: new failures, changed status, slower
    /// phases, requests added and removed, header names and body keys added and removed, new error logs.
    public var changes: [Change] = []
    public var beforeRequests: Int
    public var afterRequests: Int
    /// Requests or error wordings past the bounds, on either side (compared only as far as kept).
    public var notCompared: Int

    /// Whether AFTER fails where BEFORE did not.
    public var newFailures: Int { changes.filter { $0.kind == "new failure" }.count }

    /// A phase is slower when AFTER's median exceeds BEFORE's by half and by at least this many ms.
    public static let noiseMs = 50.0

    public init(before: DiffCollector, after: DiffCollector) {
        beforeRequests = before.requests.count
        afterRequests = after.requests.count
        notCompared = before.droppedRequests + after.droppedRequests + before.droppedTemplates + after.droppedTemplates
        let b = Dictionary(grouping: before.requests, by: \.route)
        let a = Dictionary(grouping: after.requests, by: \.route)
        var c: [Change] = []
        for route in a.keys.sorted() {
            let after = a[route] ?? []
            guard let before = b[route] else { continue }
            // Pairs in order: the k-th call of a route against the k-th.
            for (x, y) in zip(before, after) {
                if y.failed && !x.failed {
                    c.append(
                        Change(kind: "new failure", route: route, text: "\(Self.seq(y))\(y.outcome) (before: \(Self.seq(x))\(x.outcome))"))
                } else if x.status != y.status, x.status != nil || y.status != nil {
                    c.append(Change(kind: "status changed", route: route, text: "\(Self.seq(y))\(x.outcome) → \(y.outcome)"))
                }
            }
            if after.count > before.count {
                for y in after[before.count...] where y.failed {
                    c.append(Change(kind: "new failure", route: route, text: "\(Self.seq(y))\(y.outcome) (an extra call)"))
                }
            }
            for phase in ["dns", "connect", "tls", "waiting", "download", "total"] {
                guard let m0 = Self.median(before.compactMap { $0.phases[phase] }),
                    let m1 = Self.median(after.compactMap { $0.phases[phase] })
                else { continue }
                if m1 > m0 * 1.5 && m1 - m0 >= Self.noiseMs {
                    c.append(Change(kind: "slower", route: route, text: "\(phase) \(Human.duration(ms: m0)) → \(Human.duration(ms: m1))"))
                }
            }
            if after.count != before.count {
                c.append(
                    Change(
                        kind: after.count > before.count ? "more calls" : "fewer calls", route: route,
                        text: "\(before.count) → \(after.count)"))
            }
            for (what, pick) in [
                ("request header", \DiffCollector.Request.requestHeaders), ("response header", \.responseHeaders),
                ("request body key", \.requestKeys), ("response body key", \.responseKeys)
            ] as [(String, KeyPath<DiffCollector.Request, Set<String>>)] {
                let s0 = before.reduce(into: Set<String>()) { $0.formUnion($1[keyPath: pick]) }
                let s1 = after.reduce(into: Set<String>()) { $0.formUnion($1[keyPath: pick]) }
                let added = s1.subtracting(s0).sorted(), removed = s0.subtracting(s1).sorted()
                if !added.isEmpty { c.append(Change(kind: "\(what) added", route: route, text: Self.list(added))) }
                if !removed.isEmpty { c.append(Change(kind: "\(what) removed", route: route, text: Self.list(removed))) }
            }
        }
        for route in a.keys.sorted() where b[route] == nil {
            let after = a[route] ?? []
            let failed = after.filter(\.failed)
            c.append(Change(kind: "request added", route: route, text: "×\(after.count)"))
            for y in failed { c.append(Change(kind: "new failure", route: route, text: "\(Self.seq(y))\(y.outcome) (a new request)")) }
        }
        for route in b.keys.sorted() where a[route] == nil {
            c.append(Change(kind: "request removed", route: route, text: "×\(b[route]?.count ?? 0)"))
        }
        for t in after.errorLogs.keys.sorted() where before.errorLogs[t] == nil {
            c.append(Change(kind: "new error log", route: "", text: "\(t) (×\(after.errorLogs[t] ?? 0))"))
        }
        let order = [
            "new failure", "status changed", "slower", "request added", "request removed", "more calls", "fewer calls",
            "request header added", "request header removed", "response header added", "response header removed",
            "request body key added", "request body key removed", "response body key added", "response body key removed",
            "new error log"
        ]
        changes = c.enumerated().sorted { l, r in
            let (i, j) = (order.firstIndex(of: l.element.kind) ?? 99, order.firstIndex(of: r.element.kind) ?? 99)
            return i != j ? i < j : l.offset < r.offset
        }.map(\.element)
    }

    static func seq(_ r: DiffCollector.Request) -> String { r.seq.map { "#\($0) " } ?? "" }

    static func list(_ names: [String]) -> String {
        names.prefix(10).joined(separator: ", ") + (names.count > 10 ? ", … (\(names.count - 10) more)" : "")
    }

    static func median(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// A copy with every text from the exports (routes, names, log wordings) through `redactor`.
    public func redacted(by redactor: Redactor) -> SessionDiff {
        var d = self
        d.changes = changes.map { ch in
            Change(
                kind: ch.kind, route: redactor.text(ch.route.untrusted).value, text: redactor.text(ch.text.untrusted).value)
        }
        return d
    }

    // MARK: Rendering

    public func text(before: String, after: String) -> String {
        var o = "pbsift diff: \(before) (\(beforeRequests) requests) → \(after) (\(afterRequests) requests)\n"
        if changes.isEmpty {
            o += "no differences\n"
        } else {
            var last = ""
            for ch in changes {
                if ch.kind != last {
                    o += "\(ch.kind)\n"
                    last = ch.kind
                }
                o += "  " + (ch.route.isEmpty ? "" : ch.route + "  ") + ch.text + "\n"
            }
        }
        if notCompared > 0 { o += "note: \(notCompared) requests or error wordings past the bounds were not compared\n" }
        return o
    }

    public func markdown(before: String, after: String) -> String {
        var o =
            "## pbsift diff\n\n\(Escape.markdown(before)) (\(beforeRequests) requests) → \(Escape.markdown(after)) (\(afterRequests) requests)\n\n"
        if changes.isEmpty { return o + "No differences.\n" }
        o += "| change | request | what |\n|---|---|---|\n"
        for ch in changes {
            o += "| \(ch.kind) | \(ch.route.isEmpty ? "" : Escape.markdownCode(ch.route)) | \(Escape.markdown(ch.text)) |\n"
        }
        if notCompared > 0 { o += "\n_\(notCompared) requests or error wordings past the bounds were not compared._\n" }
        return o
    }

    public func json(before: String, after: String) -> JSONOut {
        .object([
            "before": .object(["input": .string(before), "requests": .int(beforeRequests)]),
            "after": .object(["input": .string(after), "requests": .int(afterRequests)]),
            "newFailures": .int(newFailures), "notCompared": .int(notCompared),
            "changes": .array(changes.map { .object(["kind": .string($0.kind), "route": .string($0.route), "text": .string($0.text)]) })
        ])
    }
}
