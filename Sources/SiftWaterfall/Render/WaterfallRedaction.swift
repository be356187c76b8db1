import SiftCore

// Every text of a waterfall that came from the export, redacted before any renderer sees it
// (`WaterfallReport.init` applies it).

extension WaterfallTransaction: Redactable {
    public func redacted(by r: Redactor) -> WaterfallTransaction {
        var t = self
        t.url = r.url(url)
        t.networkProtocol = r.text(networkProtocol)
        t.remoteAddress = r.text(remoteAddress)
        t.tlsVersion = r.text(tlsVersion)
        t.fetchType = r.text(fetchType)
        t.anomalies = anomalies.map { r.text($0) }
        return t
    }
}

extension WaterfallRequest: Redactable {
    public func redacted(by r: Redactor) -> WaterfallRequest {
        var q = self
        q.file = r.text(file)
        q.sessionId = r.text(sessionId)
        q.recordId = r.text(recordId)
        q.requestId = r.text(requestId)
        q.method = r.text(method)
        q.url = r.url(url)
        q.state = r.text(state)
        q.source = r.text(source)
        q.category = r.text(category)
        q.kind = r.text(kind)
        q.label = r.text(label)
        q.error = r.text(error)
        q.transactions = transactions.map { $0.redacted(by: r) }
        q.cachedHost = r.text(host)
        return q
    }
}

extension WaterfallSession: Redactable {
    public func redacted(by r: Redactor) -> WaterfallSession {
        var s = self
        s.file = r.text(file)
        s.sessionId = r.text(sessionId)
        s.originSource = r.text(originSource)
        s.requests = requests.map { $0.redacted(by: r) }
        return s
    }
}
