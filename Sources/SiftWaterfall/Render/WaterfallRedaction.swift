import SiftCore

// Every text of a waterfall that came from the export, redacted before any renderer sees it
// (`WaterfallReport.init` applies it). The `redact(by:)` forms work in place, so the export's texts
// are let go as their redacted forms replace them (a large export holds many requests).

extension WaterfallTransaction: Redactable {
    public func redacted(by r: Redactor) -> WaterfallTransaction {
        var t = self
        t.redact(by: r)
        return t
    }

    public mutating func redact(by r: Redactor) {
        url = r.url(url)
        networkProtocol = r.text(networkProtocol)
        remoteAddress = r.text(remoteAddress)
        tlsVersion = r.text(tlsVersion)
        fetchType = r.text(fetchType)
        for k in anomalies.indices { anomalies[k] = r.text(anomalies[k]) }
    }
}

extension WaterfallRequest: Redactable {
    public func redacted(by r: Redactor) -> WaterfallRequest {
        var q = self
        q.redact(by: r)
        return q
    }

    public mutating func redact(by r: Redactor) {
        let rawHost = host
        file = r.text(file)
        sessionId = r.text(sessionId)
        recordId = r.text(recordId)
        requestId = r.text(requestId)
        method = r.text(method)
        url = r.url(url)
        state = r.text(state)
        source = r.text(source)
        category = r.text(category)
        kind = r.text(kind)
        label = r.text(label)
        error = r.text(error)
        for k in transactions.indices { transactions[k].redact(by: r) }
        cachedHost = r.text(rawHost)
    }
}

extension WaterfallSession: Redactable {
    public func redacted(by r: Redactor) -> WaterfallSession {
        var s = self
        s.redact(by: r)
        return s
    }

    public mutating func redact(by r: Redactor) {
        file = r.text(file)
        sessionId = r.text(sessionId)
        originSource = r.text(originSource)
        for i in requests.indices { requests[i].redact(by: r) }
    }
}
