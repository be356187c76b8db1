import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

/// Never print a secret: the texts other commands show from an export (URLs, error descriptions,
/// labels, server log messages) go through the same checks `verify` runs, and every value found is
/// replaced by its masked preview before any renderer sees it.
struct OutputMasker: @unchecked Sendable {
    let finder = SecretValueFinder()
    /// Values already known to be secret (from a `verify` pass), longest first.
    var known: [String] = []

    /// Masks `texts` as one record would be: contract names in URLs, credential shapes anywhere.
    func mask(url: String?, transactionURLs: [String?] = [], texts: [String?]) -> (url: String?, transactionURLs: [String?], texts: [String?]) {
        var o: [String: JSONOut] = ["type": .string("network")]
        if let url { o["url"] = .string(url) }
        if !transactionURLs.isEmpty {
            o["metrics"] = .object(["transactions": .array(transactionURLs.map { .object(["url": .opt($0)]) })])
        }
        o["error"] = .object(["description": .string(texts.compactMap { $0 }.joined(separator: "\n"))])
        var secrets = known
        if let doc = try? JSONDocument(string: JSONOut.object(o).render(pretty: false)) {
            secrets += finder.values(in: Record(line: 1, json: doc.root))
        }
        guard !secrets.isEmpty else { return (url, transactionURLs, texts) }
        secrets.sort { $0.utf8.count > $1.utf8.count }
        func m(_ s: String?) -> String? { s.map { OutputMasker.replace($0, secrets) } }
        return (m(url), transactionURLs.map(m), texts.map(m))
    }

    static func replace(_ text: String, _ secrets: [String]) -> String {
        var out = text
        for s in secrets where !s.isEmpty && out.contains(s) { out = out.replacingOccurrences(of: s, with: SecretMask.preview(s)) }
        return out
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
