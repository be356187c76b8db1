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
        url = r.url(url.untrusted).value
        networkProtocol = r.text(networkProtocol.untrusted).value
        remoteAddress = r.text(remoteAddress.untrusted).value
        tlsVersion = r.text(tlsVersion.untrusted).value
        fetchType = r.text(fetchType.untrusted).value
        for k in anomalies.indices { anomalies[k] = r.text(anomalies[k].untrusted).value }
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
        file = r.text(file.untrusted).value
        sessionId = r.text(sessionId.untrusted).value
        recordId = r.text(recordId.untrusted).value
        requestId = r.text(requestId.untrusted).value
        method = r.text(method.untrusted).value
        url = r.url(url.untrusted).value
        state = r.text(state.untrusted).value
        source = r.text(source.untrusted).value
        category = r.text(category.untrusted).value
        kind = r.text(kind.untrusted).value
        label = r.text(label.untrusted).value
        error = r.text(error.untrusted).value
        for k in transactions.indices { transactions[k].redact(by: r) }
        cachedHost = r.text(rawHost.untrusted).value
    }
}

extension WaterfallSession: Redactable {
    public func redacted(by r: Redactor) -> WaterfallSession {
        var s = self
        s.redact(by: r)
        return s
    }

    public mutating func redact(by r: Redactor) {
        file = r.text(file.untrusted).value
        sessionId = r.text(sessionId.untrusted).value
        originSource = r.text(originSource.untrusted).value
        for i in requests.indices { requests[i].redact(by: r) }
    }
}
