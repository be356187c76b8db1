import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

/// Never print a secret: the texts other commands show from an export (URLs, error descriptions,
/// labels, server log messages) go through the same checks `verify` runs, and every value found is
/// replaced by its masked preview before any renderer sees it.
struct OutputMasker: @unchecked Sendable {
    /// Runs verify's checks on each text; nil when `known` already covers them (a verify pass saw
    /// every record these texts come from).
    let finder: SecretValueFinder?
    /// Values already known to be secret (from a `verify` pass).
    let known: SecretReplacer

    /// Masks with verify's checks on each text.
    init() {
        finder = SecretValueFinder()
        known = SecretReplacer([])
    }

    /// Masks with the values a verify pass over the same records found (no second scan).
    init(known values: [String]) {
        finder = nil
        known = SecretReplacer(values)
    }

    /// Masks a URL, transaction URLs and texts of one request as one record would be: contract
    /// names in URLs, credential shapes anywhere.
    func mask(url: String?, transactionURLs: [String?] = [], texts: [String?]) -> (url: String?, transactionURLs: [String?], texts: [String?]) {
        var replacer = known
        if let finder {
            var o: [String: JSONOut] = ["type": .string("network")]
            if let url { o["url"] = .string(url) }
            if !transactionURLs.isEmpty {
                o["metrics"] = .object(["transactions": .array(transactionURLs.map { .object(["url": .opt($0)]) })])
            }
            o["error"] = .object(["description": .string(texts.compactMap { $0 }.joined(separator: "\n"))])
            guard let doc = try? JSONDocument(string: JSONOut.object(o).render(pretty: false)) else { return (url, transactionURLs, texts) }
            let found = finder.values(in: Record(line: 1, json: doc.root))
            guard !found.isEmpty else { return (url, transactionURLs, texts) }
            replacer = SecretReplacer(found)
        }
        guard !replacer.isEmpty else { return (url, transactionURLs, texts) }
        func m(_ s: String?) -> String? { s.map(replacer.mask) }
        return (m(url), transactionURLs.map(m), texts.map(m))
    }

    func mask(_ sessions: [WaterfallSession]) -> [WaterfallSession] {
        sessions.map { s in
            var s = s
            s.requests = s.requests.map { r in
                var r = r
                let m = mask(url: r.url, transactionURLs: r.transactions.map(\.url), texts: [r.error, r.label])
                r.url = m.url
                for i in r.transactions.indices where i < m.transactionURLs.count { r.transactions[i].url = m.transactionURLs[i] }
                r.error = m.texts[0]
                r.label = m.texts[1]
                return r
            }
            return s
        }
    }

    func mask(_ report: CorrelationReport) -> CorrelationReport {
        var report = report
        report.requests = report.requests.map { c in
            var c = c
            let m = mask(url: c.entry.url, texts: c.lines.map(\.line.parsed.message))
            c.entry.url = m.url
            for i in c.lines.indices { c.lines[i].line.parsed.message = m.texts[i] }
            return c
        }
        return report
    }
}

/// Replaces every occurrence of known secret values in a text by their masked previews, in one pass
/// over the text whatever the number of values (values are indexed by their first four bytes).
/// Values shorter than four bytes are not replaced: they can't be told from ordinary text.
struct SecretReplacer: Sendable {
    private var byPrefix: [UInt32: [[UInt8]]] = [:]
    private var previews: [[UInt8]: String] = [:]

    init(_ values: [String]) {
        for v in Set(values) {
            let b = Array(v.utf8)
            guard b.count >= 4 else { continue }
            byPrefix[SecretReplacer.key(b, 0), default: []].append(b)
            previews[b] = SecretMask.preview(v)
        }
        for k in byPrefix.keys { byPrefix[k]?.sort { $0.count > $1.count } }
    }

    var isEmpty: Bool { byPrefix.isEmpty }

    @inline(__always) static func key(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    func mask(_ text: String) -> String {
        guard !byPrefix.isEmpty else { return text }
        let b = Array(text.utf8)
        guard b.count >= 4 else { return text }
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        while i + 4 <= b.count {
            if let candidates = byPrefix[SecretReplacer.key(b, i)],
               let hit = candidates.first(where: { c in i + c.count <= b.count && b[i..<i + c.count].elementsEqual(c) }) {
                if out.isEmpty { out.reserveCapacity(b.count) }
                out += b[copied..<i]
                out += Array((previews[hit] ?? "…").utf8)
                i += hit.count
                copied = i
            } else {
                i += 1
            }
        }
        if copied == 0 { return text }
        out += b[copied...]
        return String(decoding: out, as: UTF8.self)
    }
}
