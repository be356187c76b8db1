import SiftCore

// Every text of a waterfall that came from the export, redacted before any renderer sees it
// (`WaterfallReport.init` applies it). The `redact(by:)` forms work in place, so the export's texts
// are let go as their redacted forms replace them (a large export holds many requests).

/// Redacts each repeated text (a URL, a host, a method, a file name) once: the requests that shared
/// one copy of it before share one redacted copy after. Bounded; past `maxEntries` a text is
/// redacted on its own.
final class SharedRedaction {
    let redactor: Redactor
    private var texts: [String: String] = [:]
    private var urls: [String: String] = [:]
    static let maxEntries = 4096

    init(_ redactor: Redactor) { self.redactor = redactor }

    func text(_ s: String?) -> String? {
        guard let s else { return nil }
        // Short texts too (a method, a state, `h2`): a lookup here costs less than the redactor's
        // shared memo, which takes a lock.
        if let hit = texts[s] { return hit }
        let out = redactor.text(s.untrusted).value
        if texts.count < SharedRedaction.maxEntries { texts[s] = out }
        return out
    }

    func url(_ s: String?) -> String? {
        guard let s else { return nil }
        if let hit = urls[s] { return hit }
        let out = redactor.url(s.untrusted).value
        if urls.count < SharedRedaction.maxEntries { urls[s] = out }
        return out
    }

    func unique(_ s: String?) -> String? { redactor.uniqueText(s.untrusted).value }
}

extension WaterfallTransaction: Redactable {
    public func redacted(by r: Redactor) -> WaterfallTransaction {
        var t = self
        t.redact(by: r)
        return t
    }

    public mutating func redact(by r: Redactor) { redact(SharedRedaction(r)) }

    mutating func redact(_ r: SharedRedaction) {
        url = r.url(url)
        networkProtocol = r.text(networkProtocol)
        remoteAddress = r.text(remoteAddress)
        tlsVersion = r.text(tlsVersion)
        fetchType = r.text(fetchType)
        for k in anomalies.indices { anomalies[k] = r.text(anomalies[k]) ?? "" }
    }
}

extension WaterfallRequest: Redactable {
    public func redacted(by r: Redactor) -> WaterfallRequest {
        var q = self
        q.redact(by: r)
        return q
    }

    public mutating func redact(by r: Redactor) { redact(SharedRedaction(r)) }

    mutating func redact(_ r: SharedRedaction) {
        let rawHost = host
        record.redact(unique: r.unique, repeated: r.text, url: r.url)
        source = r.text(source)
        category = r.text(category)
        kind = r.text(kind)
        label = r.text(label)
        for k in transactions.indices { transactions[k].redact(r) }
        cachedHost = r.text(rawHost)
    }
}

extension WaterfallSession: Redactable {
    /// Redacts every session in place, sessions side by side on the worker threads (each redacted
    /// text is the same whichever thread redacts it).
    static func redact(_ sessions: inout [WaterfallSession], by r: Redactor) {
        Parallel.forEach(&sessions) { $0.redact(by: r) }
    }

    public func redacted(by r: Redactor) -> WaterfallSession {
        var s = self
        s.redact(by: r)
        return s
    }

    public mutating func redact(by r: Redactor) {
        let shared = SharedRedaction(r)
        file = r.text(file.untrusted).value
        sessionId = r.text(sessionId.untrusted).value
        originSource = r.text(originSource.untrusted).value
        for i in requests.indices { requests[i].redact(shared) }
    }
}
