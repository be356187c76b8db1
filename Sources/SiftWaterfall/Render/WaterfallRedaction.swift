import Foundation
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
    /// Per field (`Slot`), the last two texts redacted and their redactions, the latest first:
    /// requests in a row mostly share their method, state, host, protocol… or take turns between
    /// two (`GET` and `POST`), and comparing with them (the same pooled string: its storage
    /// compared, no hash) costs less than a lookup. Held through a pointer, not an array property:
    /// read and written for every text of every request, without an access or a uniqueness check
    /// each time.
    private let last: UnsafeMutablePointer<(text: String, out: String)?>
    private static let memoCount = 2 * Slot.allCases.count

    /// The texts a request holds, each with its own last-redacted memo.
    enum Slot: Int, CaseIterable {
        case file, sessionId, method, state, error, url, source, category, kind, label, host
        case txURL, txProtocol, txAddress, txTLS, txFetchType, anomaly
    }

    init(_ redactor: Redactor) {
        self.redactor = redactor
        last = .allocate(capacity: SharedRedaction.memoCount)
        last.initialize(repeating: nil, count: SharedRedaction.memoCount)
    }

    deinit {
        last.deinitialize(count: SharedRedaction.memoCount)
        last.deallocate()
    }

    func text(_ s: String?, _ slot: Slot) -> String? { remembered(s, slot) { self.text($0) } }

    func url(_ s: String?, _ slot: Slot) -> String? { remembered(s, slot) { self.url($0) } }

    /// `redact(s)` (or `s` when it gives nil), taken from the slot's last two texts when `s` is one
    /// of them (compared where they stand, not copied out first).
    @inline(__always)
    private func remembered(_ s: String?, _ slot: Slot, _ redact: (String) -> String?) -> String? {
        guard let s else { return nil }
        let memo = last + 2 * slot.rawValue
        if memo.pointee?.text == s { return memo.pointee?.out }
        if (memo + 1).pointee?.text == s {
            // The older one becomes the latest.
            let hit = (memo + 1).move()
            (memo + 1).moveInitialize(from: memo, count: 1)
            memo.initialize(to: hit)
            return hit?.out
        }
        let out = redact(s) ?? s
        (memo + 1).deinitialize(count: 1)
        (memo + 1).moveInitialize(from: memo, count: 1)
        memo.initialize(to: (s, out))
        return out
    }

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

    mutating func redact(_ r: SharedRedaction) { redact(r, requestURL: nil, redacted: nil) }

    /// `redact(_:)`, the request's URL (`requestURL`, redacted: `redacted`) taken as it is when the
    /// transaction's is the same text (most are): redacting is a function of the text.
    mutating func redact(_ r: SharedRedaction, requestURL: String?, redacted: String?) {
        if let u = url, let q = requestURL, u == q {
            url = redacted
        } else {
            url = r.url(url, .txURL)
        }
        networkProtocol = r.text(networkProtocol, .txProtocol)
        remoteAddress = r.text(remoteAddress, .txAddress)
        tlsVersion = r.text(tlsVersion, .txTLS)
        fetchType = r.text(fetchType, .txFetchType)
        for k in anomalies.indices { anomalies[k] = r.text(anomalies[k], .anomaly) ?? "" }
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
        let rawURL = record.url
        record.redact(
            unique: r.unique,
            repeated: { s, which in
                switch which {
                case .file: r.text(s, .file)
                case .sessionId: r.text(s, .sessionId)
                case .method: r.text(s, .method)
                case .state: r.text(s, .state)
                case .error: r.text(s, .error)
                }
            }, url: { r.url($0, .url) })
        source = r.text(source, .source)
        category = r.text(category, .category)
        kind = r.text(kind, .kind)
        label = r.text(label, .label)
        for k in transactions.indices { transactions[k].redact(r, requestURL: rawURL, redacted: record.url) }
        cachedHost = r.text(rawHost, .host)
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

/// Sessions redacted as they end, while the export is still being read: each one on a worker thread
/// as the collector hands it over (`WaterfallAnalysis(sessionsTo: add)`), so that the waterfall's
/// redaction runs beside the reading instead of after it. Only `WaterfallReport(sessions:…)` takes
/// them out, and only redacted: the sessions are never handed back as read.
/// For a report without a filter: a filter chooses requests by their texts as read.
public final class RedactingSessions: @unchecked Sendable { // `slots` only under `lock`
    let redactor: Redactor
    private let lock = NSLock()
    private let group = DispatchGroup()
    private var slots: [WaterfallSession?] = []

    public init(_ redactor: Redactor) {
        self.redactor = redactor
    }

    /// Takes one finished session (calls come one at a time, in order) and redacts it on a worker.
    public func add(_ session: WaterfallSession) {
        lock.lock()
        let k = slots.count
        slots.append(session)
        lock.unlock()
        let redactor = redactor
        DispatchQueue.global().async(group: group) { [self] in
            // Taken out of its slot (not captured), so that it is redacted in place, not copied.
            lock.lock()
            var s = slots[k].take()!
            lock.unlock()
            s.redact(by: redactor)
            lock.lock()
            slots[k] = consume s
            lock.unlock()
        }
    }

    /// Every session added, redacted, in the order they were added (waits for the last one).
    func take() -> [WaterfallSession] {
        group.wait()
        lock.lock()
        defer { lock.unlock() }
        let out = slots.map { $0! }
        slots = []
        return WaterfallSession.inLaunchOrder(out)
    }
}
