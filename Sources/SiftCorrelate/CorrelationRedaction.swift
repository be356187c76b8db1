import SiftCore

// Every text of a correlation that came from the export or the server logs, redacted before any
// renderer sees it (`CorrelationRender` takes a `Redacted<CorrelationReport>`).

// A redaction that changes nothing returns the value it was given (its strings and, for a network
// record, its box): the redacted report then shares what the report it came from holds, instead of
// holding a second copy of every request.

extension NetworkEntry: Redactable {
    public func redacted(by r: Redactor) -> NetworkEntry {
        var record = self.record
        // Ids do not repeat: redacted without the memo (a hundred thousand would fill it for nothing).
        record.redact(
            unique: { r.uniqueText($0.untrusted).value }, repeated: { r.text($0.untrusted).value },
            url: { r.url($0.untrusted).value })
        if record == self.record { return self }
        var e = self
        e.record = record
        return e
    }
}

extension SessionEntry: Redactable {
    public func redacted(by r: Redactor) -> SessionEntry {
        var e = self
        e.file = r.text(file.untrusted).value
        e.sessionId = r.text(sessionId.untrusted).value
        e.userId = r.text(userId.untrusted).value
        return e == self ? self : e
    }
}

extension ServerLine: Redactable {
    public func redacted(by r: Redactor) -> ServerLine {
        var l = self
        l.file = r.text(file.untrusted).value
        l.parsed.level = r.text(parsed.level.untrusted).value
        l.parsed.message = r.text(parsed.message.untrusted).value
        l.parsed.method = r.text(parsed.method.untrusted).value
        l.parsed.path = r.url(parsed.path.untrusted).value
        if !parsed.continuation.isEmpty { l.parsed.continuation = parsed.continuation.map { r.text($0.untrusted).value } }
        l.parsed.cause = r.text(parsed.cause.untrusted).value
        if !parsed.fields.isEmpty {
            var fields: [String: String] = [:]
            for (k, v) in parsed.fields { fields[r.text(k.untrusted).value] = r.text(v.untrusted).value }
            l.parsed.fields = fields
        }
        return l == self ? self : l
    }
}

extension Array where Element: Equatable {
    /// `map(transform)`, returning `self` (its buffer, not a copy) while `transform` changes nothing:
    /// a new array is made only from the first element that changed.
    func mapSharing(_ transform: (Element) -> Element) -> [Element] {
        var out: [Element]? = nil
        for (i, x) in enumerated() {
            let y = transform(x)
            if out != nil {
                out?.append(y)
            } else if y != x {
                var o = Array(self[..<i])
                o.reserveCapacity(count)
                o.append(y)
                out = o
            }
        }
        return out ?? self
    }
}

extension CorrelationReport: Redactable {
    public func redacted(by r: Redactor) -> CorrelationReport {
        var c = self
        c.requests = requests.mapSharing { q in
            var q = q
            q.entry = q.entry.redacted(by: r)
            q.lines = q.lines.mapSharing { pl in
                var pl = pl
                pl.line = pl.line.redacted(by: r)
                return pl
            }
            return q
        }
        c.sessions = sessions.mapSharing { s in
            var s = s
            s.entry = s.entry.redacted(by: r)
            return s
        }
        c.logs.files = logs.files.map { f in
            var f = f
            f.file = r.text(f.file.untrusted).value
            f.error = r.text(f.error.untrusted).value
            return f
        }
        c.logs.errors = logs.errors.map { r.text($0.untrusted).value }
        // The join is done: the lines live on in `requests` (redacted above).
        c.logs.lines = []
        c.findings = findings.map { $0.redacted(by: r) }
        return c
    }
}
