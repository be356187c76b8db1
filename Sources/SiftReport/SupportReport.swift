import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify
import SiftWaterfall

/// `pbsift report`: everything the other commands found, in one pass, led by a verdict.
/// It composes their analyses and renderers; it re-implements none of them.
public struct SupportReport: Sendable {
    /// What `--session`, `--since` and `--until` kept (`records from 10:15:50Z`), said in the headline
    /// so a pasted report never reads as the whole export; nil when everything was read.
    public var scope: String?
    /// The reader's outcome, redacted, without its findings (`findings` holds those shown).
    public let redactedOutcome: Redacted<ReadOutcome>
    public var outcome: ReadOutcome { redactedOutcome.value }
    /// Every finding of every analysis, sorted, redacted.
    public var findings: [Finding] { redactedFindings.value }
    /// The same, as the redactor gave them (for the formats every command shares).
    public let redactedFindings: Redacted<[Finding]>
    /// Built with the same redactor.
    public let waterfall: WaterfallReport
    /// Nil when no `--logs` were given.
    public let redactedCorrelation: Redacted<CorrelationReport>?
    public var correlation: CorrelationReport? { redactedCorrelation?.value }
    public let timeline: FailureTimeline
    public let verifySummary: VerifySummary
    public let slowest: Int
    /// Every text shown goes through it (the records of the timeline are read here, raw).
    let redactor: Redactor

    /// Everything untrusted is redacted here, once: the outcome, the findings, the correlation;
    /// `waterfall` must have been built with the same `redactor`.
    /// `digest`: the requests as `RequestDigest` took them while the sessions ended, when `waterfall`
    /// holds no session (a format that does not print the waterfall document); nil reads them from
    /// `waterfall`.
    public init(
        outcome: ReadOutcome, findings: [Finding], waterfall: WaterfallReport, digest: RequestDigest? = nil,
        correlation: CorrelationReport?, timeline: FailureTimeline, verifySummary: VerifySummary, slowest: Int,
        redactor: Redactor, scope: String? = nil
    ) {
        self.scope = scope
        // The outcome's findings are not redacted a second time: `findings` are the ones shown (an
        // export of many sessions has many, and each copy counts).
        var read = outcome
        read.findings = []
        self.redactedOutcome = redactor.apply(read)
        self.redactedFindings = redactor.apply(findings)
        self.waterfall = waterfall
        self.redactedCorrelation = correlation.map { redactor.apply($0) }
        self.timeline = timeline
        self.verifySummary = verifySummary
        self.slowest = slowest
        self.redactor = redactor
        let otherSession: Bool
        if let digest {
            // Taken as the sessions ended: the few requests shown, redacted here as the waterfall
            // redacts its own, and the host counts under the hosts' redacted names.
            let failed = digest.failed.map { $0.redacted(by: redactor) }
            self.failed = failed
            failedCount = digest.failedCount
            slowestFailed = digest.slowestFailed.map { $0.redacted(by: redactor) }
            slow = digest.slowRequests.map { $0.redacted(by: redactor) }
            var hosts: [String: (requests: Int, opened: Int)] = [:]
            for (h, c) in digest.hosts {
                let key = redactor.text(h.untrusted).value
                hosts[key, default: (0, 0)].requests += c.requests
                hosts[key, default: (0, 0)].opened += c.opened
            }
            allHostStats = hosts
            let shown = Set((failed + slow + (slowestFailed.map { [$0] } ?? [])).compactMap(\.host))
            shownHosts = shown
            shownHostStats = hosts.filter { shown.contains($0.key) }
            let ids = digest.sessionIds.map { $0.map { redactor.text($0.untrusted).value } }
            otherSession = digest.manyIds || ids.dropFirst().contains { $0 != ids[0] }
        } else {
            allHostStats = nil
            let scan = SupportReport.scan(waterfall, slowest: slowest)
            let failed = scan.failed, slow = scan.slow, slowestFailed = scan.slowestFailed
            self.failed = failed
            self.failedCount = scan.failedCount
            self.slowestFailed = slowestFailed
            self.slow = slow
            otherSession = scan.otherSession
            // The connection counts `whyText` quotes, for every host a row or the verdict can show,
            // taken in the same pass (not a pass over every request per row, nor a second pass).
            let shown = Set((failed + slow + (slowestFailed.map { [$0] } ?? [])).compactMap(\.host))
            shownHosts = shown
            shownHostStats = scan.hosts.filter { shown.contains($0.key) }
        }
        let windows = SupportReport.merge(timeline.windows)
        failureWindows = windows
        // Only the requests a report shows are looked up (an index of every request would hold a
        // hundred thousand places).
        var shown = Set((failed + slow + (slowestFailed.map { [$0] } ?? [])).map(\.ref))
        for w in windows {
            for f in w.failures { shown.insert(RecordRef(input: w.input, file: w.file, line: f.line, ordinal: f.ordinal)) }
        }
        var index: [RecordRef: Int] = [:]
        if !shown.isEmpty {
            for (i, c) in (redactedCorrelation?.value.requests ?? []).enumerated()
            where shown.contains(c.entry.ref) && index[c.entry.ref] == nil {
                index[c.entry.ref] = i
            }
        }
        correlationIndex = index
        indexedRefs = shown
        multiSession = outcome.totalSessions > 1 || otherSession
    }

    /// The failed requests (the first `maxFailedShown`, their count, the slowest), the `slowest`
    /// slowest that did not fail, and whether the requests name more than one session, from every
    /// session of `waterfall` (`RequestDigest` takes the same as the sessions end).
    static func requests(of waterfall: WaterfallReport, slowest: Int)
        -> (failed: [WaterfallRequest], failedCount: Int, slowestFailed: WaterfallRequest?, slow: [WaterfallRequest], otherSession: Bool)
    {
        let s = scan(waterfall, slowest: slowest)
        return (s.failed, s.failedCount, s.slowestFailed, s.slow, s.otherSession)
    }

    /// What `requests(of:slowest:)` gives, and per host its requests and how many opened a
    /// connection (`WaterfallSummary.hostStats` of every host).
    struct Scan {
        var failed: [WaterfallRequest]
        var failedCount: Int
        var slowestFailed: WaterfallRequest?
        var slow: [WaterfallRequest]
        var otherSession: Bool
        var hosts: [String: (requests: Int, opened: Int)]
    }

    /// The part of a `Scan` of some sessions in a row, by place (session, request).
    private struct PartScan {
        /// The session id of the part's first request (`.some(nil)`: a request without one).
        var firstId: String?? = nil
        /// Another request of the part names another session.
        var other = false
        var failed: [(s: Int, r: Int)] = []
        var failedCount = 0
        var slowestFailed: (ms: Double, s: Int, r: Int)?
        /// The part's `slowest` slowest that did not fail, in `RequestDigest.before` order.
        var slow: [(ms: Double, seq: Int, s: Int, r: Int)] = []
        var hosts: [String: (requests: Int, opened: Int)] = [:]
    }

    /// Every request read once, in place (a request copied whole retains every text it holds), a
    /// few runs of sessions of about as many requests side by side; the parts are joined in session
    /// order, as one loop over every request would take them. The slowest are kept as they go by
    /// (`RequestDigest.before` is a total order: the first `slowest` of each part hold the first
    /// `slowest` of all), not sorted all.
    static func scan(_ waterfall: WaterfallReport, slowest: Int) -> Scan {
        let sessions = waterfall.sessions
        let top = max(0, slowest)
        // A few parts a worker (not one per session: an export can hold a hundred thousand).
        let total = sessions.reduce(0) { $0 + $1.requests.count }
        let share = max(1, total / max(1, 4 * ReadWorkers.count))
        var ranges: [Range<Int>] = []
        var from = 0, held = 0
        for i in sessions.indices {
            held += sessions[i].requests.count
            if held >= share {
                ranges.append(from..<(i + 1))
                from = i + 1
                held = 0
            }
        }
        if from < sessions.count || ranges.isEmpty { ranges.append(from..<sessions.count) }
        let parts = Parallel.map(ranges) { range -> PartScan in
            var p = PartScan()
            var runs = HostRuns()
            for si in range {
                sessions[si].forEachRequest(hosts: []) { ri, r in
                    if let first = p.firstId {
                        if !p.other && first != r.sessionId { p.other = true }
                    } else {
                        p.firstId = .some(r.sessionId)
                    }
                    runs.add(r.host, opened: r.openedConnection, into: &p.hosts)
                    let ms = r.elapsedMs
                    if r.failed {
                        // The first few in full; the rest counted, and the slowest of them kept.
                        p.failedCount += 1
                        if p.failed.count < SupportReport.maxFailedShown { p.failed.append((si, ri)) }
                        if p.slowestFailed.map({ ms > $0.ms }) ?? true { p.slowestFailed = (ms, si, ri) }
                    } else if !r.pending && top > 0 {
                        let c = (ms: ms, seq: r.seq ?? 0, s: si, r: ri)
                        if p.slow.count == top, let worst = p.slow.last, !RequestDigest.before(c, worst) { return }
                        // The first place whose candidate comes after this one.
                        var lo = 0, hi = p.slow.count
                        while lo < hi {
                            let mid = (lo + hi) / 2
                            if RequestDigest.before(p.slow[mid], c) { lo = mid + 1 } else { hi = mid }
                        }
                        p.slow.insert(c, at: lo)
                        if p.slow.count > top { p.slow.removeLast() }
                    }
                }
            }
            runs.flush(into: &p.hosts)
            return p
        }
        var out = Scan(failed: [], failedCount: 0, slowestFailed: nil, slow: [], otherSession: false, hosts: [:])
        var firstSessionId: String?? = nil
        var slowestFailedMs: Double?
        var candidates: [(ms: Double, seq: Int, s: Int, r: Int)] = []
        for p in parts {
            if let id = p.firstId {
                if let first = firstSessionId {
                    if first != id { out.otherSession = true }
                } else {
                    firstSessionId = .some(id)
                }
            }
            if p.other { out.otherSession = true }
            out.failedCount += p.failedCount
            for f in p.failed where out.failed.count < SupportReport.maxFailedShown { out.failed.append(sessions[f.s].requests[f.r]) }
            if let f = p.slowestFailed, slowestFailedMs.map({ f.ms > $0 }) ?? true {
                out.slowestFailed = sessions[f.s].requests[f.r]
                slowestFailedMs = f.ms
            }
            candidates += p.slow
            for (h, c) in p.hosts {
                out.hosts[h, default: (0, 0)].requests += c.requests
                out.hosts[h, default: (0, 0)].opened += c.opened
            }
        }
        // The slowest first; equal times by seq, then in record order.
        candidates.sort { RequestDigest.before($0, $1) }
        out.slow = candidates.prefix(top).map { sessions[$0.s].requests[$0.r] }
        return out
    }

    /// The timeline's windows, overlapping ones merged.
    public let failureWindows: [FailureWindow]
    /// Whether more than one session was read: request rows then name their session.
    public let multiSession: Bool

    /// `ses_4fd58165… #31 POST …` with several sessions, `#31 POST …` with one.
    public func rowTitle(_ r: WaterfallRequest, width: Int? = nil) -> String {
        var t = "#\(r.seq.map(String.init) ?? "?") " + r.shortTitle
        if let width { t = WaterfallFormat.fitMiddle(t, width) }
        return multiSession ? SessionSelector.short(r.sessionId) + " " + t : t
    }

    /// `text` (from the export or the logs) redacted.
    public func masked(_ text: Untrusted) -> String { redactor.text(text).value }

    /// The first `maxFailedShown` failed requests (state failure or cancelled, or HTTP 400 and up),
    /// in record order (an export can hold a hundred thousand; the rest are counted in `failedCount`).
    public let failed: [WaterfallRequest]
    /// Every failed request, counted.
    public let failedCount: Int
    /// The failed request that took longest.
    let slowestFailed: WaterfallRequest?
    /// The slowest requests that did not fail, at most `slowest`.
    public let slow: [WaterfallRequest]
    /// `WaterfallSummary.hostStats` of the hosts of `failed`, `slow` and `slowestFailed`.
    private let shownHostStats: [String: (requests: Int, opened: Int)]
    /// Every host's counts, when a `RequestDigest` took the requests (no session is left to count).
    private let allHostStats: [String: (requests: Int, opened: Int)]?
    private let shownHosts: Set<String>
    /// The failed requests a report shows in full (the rest are counted).
    public static let maxFailedShown = 20
    /// Correlation results by request place (input, file, line), for the places in `indexedRefs`.
    private let correlationIndex: [RecordRef: Int]
    /// The places of the requests a report shows: the failed, the slowest, those of the timeline.
    private let indexedRefs: Set<RecordRef>

    /// The correlation of a waterfall request (the same record).
    public func correlated(_ r: WaterfallRequest) -> CorrelatedRequest? { correlated(r.ref) }

    /// The correlation of the record at `ref`.
    public func correlated(_ ref: RecordRef) -> CorrelatedRequest? {
        guard let c = correlation else { return nil }
        if let i = correlationIndex[ref] { return c.requests[i] }
        return indexedRefs.contains(ref) ? nil : c.requests.first { $0.entry.ref == ref }
    }

    // MARK: verdict

    /// Rules that are about a credential reaching the export.
    public static func isLeak(_ f: Finding) -> Bool {
        (f.family?.isLeak ?? false) || f.ruleID == ReaderRule.frameInExport.id
    }

    /// Rules where the SDK's own contract was broken (a listed name whose value is not `***`).
    public static let contractRules: Set<RuleID> = [
        VerifyRule.header.id, VerifyRule.query.id, VerifyRule.bodyField.id,
        VerifyRule.metadataField.id
    ]

    /// One line each: did credentials leak, is the export intact, what failed, what was slow and
    /// why, what the server said. Plain text (renderers escape and style it).
    public var verdict: [(key: String, ok: Bool, text: String)] {
        var lines: [(String, Bool, String)] = []
        let leaks = findings.filter(SupportReport.isLeak)
        // A verdict on what was not read is no verdict: name what was not read, claim nothing for it.
        let unread = outcome.inputs.filter { $0.status != .ok }
        let unreadText =
            "\(unread.count) input\(unread.count == 1 ? "" : "s") not read in full ("
            + unread.map { "\($0.path): \($0.errors.first ?? $0.status.rawValue)" }.joined(separator: "; ") + ")"
        // A bound that stopped verify's checks (`verify.bound`): that part was not checked.
        let bounds = findings.filter { $0.ruleID == VerifyRule.bound.id }
        let boundText =
            "\(bounds.count) value\(bounds.count == 1 ? "" : "s") not checked in full ("
            + bounds.prefix(2).map(\.message).joined(separator: "; ") + (bounds.count > 2 ? "; …" : "") + ")"
        if leaks.isEmpty && !unread.isEmpty {
            lines.append(("credentials", false, "Not checked: \(unreadText); no credential in what was read."))
        } else if leaks.isEmpty && !bounds.isEmpty {
            lines.append(("credentials", false, "Not checked in full: \(boundText); no credential in what was checked."))
        } else if leaks.isEmpty {
            lines.append(("credentials", true, "No credential found in the export."))
        } else {
            let broken = leaks.filter { SupportReport.contractRules.contains($0.ruleID) }.count
            let worst = leaks.map(\.severity).max() ?? .high
            // Distinct values, not fingerprints: one short password at two places has two `loc:`
            // fingerprints but is one value (as scrub counts it).
            let prints = Set(leaks.compactMap { f in f.valueKey.map { "value \($0)" } ?? f.fingerprint }).count
            var t =
                leaks.count == findings.count
                ? "\(leaks.count) credential finding\(leaks.count == 1 ? "" : "s") (\(prints) distinct value\(prints == 1 ? "" : "s"), worst \(worst.rawValue)): "
                : "\(leaks.count) of the \(findings.count) findings \(leaks.count == 1 ? "is a credential" : "are credentials") (\(prints) distinct value\(prints == 1 ? "" : "s"), worst \(worst.rawValue)): "
            t += "\(broken) where the SDK's redaction contract was broken, \(leaks.count - broken) where it is silent"
            t += bounds.isEmpty ? "." : "; \(boundText)."
            lines.append(("credentials", false, t))
        }
        let bad = outcome.inputs.filter { $0.status != .ok }
        let damage = findings.filter { [.integrity, .archive, .limits].contains($0.family) }
        let records = outcome.totalRecords, sessions = outcome.totalSessions
        if bad.isEmpty && damage.filter({ $0.severity >= .medium }).isEmpty {
            lines.append(
                ("export", true, "Export intact: \(sessions) session\(sessions == 1 ? "" : "s"), \(records) records, every line read."))
        } else {
            var t = ""
            if !bad.isEmpty {
                t += "\(bad.count) input\(bad.count == 1 ? "" : "s") not read in full (\(bad.map(\.path).joined(separator: ", "))). "
            }
            t += "\(damage.count) integrity finding\(damage.count == 1 ? "" : "s"); \(records) record\(records == 1 ? "" : "s") read."
            lines.append(("export", false, t))
        }
        let failed = self.failed
        if failed.isEmpty && !unread.isEmpty {
            lines.append(("failures", false, "Not checked: \(unreadText); no request failed in what was read."))
        } else if failed.isEmpty {
            lines.append(("failures", true, "No request failed."))
        } else {
            let parts = failed.prefix(3).map { r -> String in
                var s = "\(multiSession ? SessionSelector.short(r.sessionId) + " " : "")\(r.shortTitle) \(outcomeText(r))"
                if let c = correlated(r), c.status == .clientOnly, logsComplete {
                    s +=
                        c.echoed ? " (the server answered: it echoed the request id; no log line carries it)" : " (the server never saw it)"
                }
                return s
            }
            lines.append(
                (
                    "failures", false,
                    "\(failedCount) request\(failedCount == 1 ? "" : "s") failed: " + parts.joined(separator: "; ")
                        + (failedCount > 3 ? "; …" : ".")
                ))
        }
        if let top = ((slowestFailed.map { [$0] } ?? []) + slow).max(by: { $0.elapsedMs < $1.elapsedMs }), top.elapsedMs > 0 {
            lines.append(
                (
                    "slowest", top.elapsedMs < 1000,
                    "\(multiSession ? SessionSelector.short(top.sessionId) + " " : "")\(top.shortTitle) took \(Human.duration(ms: top.elapsedMs)); \(whyText(top))."
                ))
        }
        if let c = correlation, !logsComplete {
            // An unread log could hold any request's lines: no claim about what the server did not see.
            let errors = c.logs.allErrors
            let n = c.requests.count
            let matched = c.count(.matched) + c.count(.idMismatch)
            lines.append(
                (
                    "server", false,
                    "Not checked: \(errors.count) log problem\(errors.count == 1 ? "" : "s") (\(errors.prefix(3).joined(separator: "; "))\(errors.count > 3 ? "; …" : "")); "
                        + "the logs that were read show \(matched) of \(n) request\(n == 1 ? "" : "s") with a request id."
                ))
        } else if let c = correlation {
            let n = c.requests.count
            let matched = c.count(.matched) + c.count(.idMismatch)
            var t = "The server logs show \(matched) of \(n) request\(n == 1 ? "" : "s") with a request id"
            if let s = c.clockSkew.seconds { t += "; " + ClockSkew.words(s) }
            let answered = c.requests.filter { $0.status == .clientOnly && $0.echoed }
            let unseen = c.requests.filter { $0.status == .clientOnly && !$0.echoed }
            if !answered.isEmpty {
                t +=
                    "; \(answered.count) answered with no log line (the response echoed the request id: "
                    + SupportReport.named(answered) + ")"
            }
            if !unseen.isEmpty {
                t +=
                    "; \(unseen.count) never reached it (or the logs don't cover \(unseen.count == 1 ? "it" : "them")): "
                    + SupportReport.named(unseen)
            }
            if c.count(.idMismatch) > 0 {
                t += "; \(c.count(.idMismatch)) id\(c.count(.idMismatch) == 1 ? " was" : "s were") rewritten on the way"
            }
            let others = c.serverOnly.withUserId
            if !others.isEmpty {
                t += "; \(others.count) other request\(others.count == 1 ? "" : "s") of this user reached the server from elsewhere: "
                t += others.prefix(3).map(\.description).joined(separator: ", ") + (others.count > 3 ? ", …" : "")
            }
            lines.append(("server", c.count(.clientOnly) == 0, t + "."))
        } else {
            lines.append(("server", true, "No server logs given (--logs): the server's side is not checked."))
        }
        return lines
    }

    /// Server lines a request row shows at most (the rest are counted: "… N more").
    public static let maxServerLinesShown = 5

    /// The server lines a row shows: error and warning lines first (a level that says so, or a status
    /// of 400 and above), then the rest, each group in file order; and how many are left out.
    public static func shownLines(_ c: CorrelatedRequest?) -> (lines: [PlacedLine], more: Int) {
        guard let c else { return ([], 0) }
        func severe(_ p: PlacedLine) -> Bool { p.line.parsed.isErrorOrWarning }
        let ordered = c.lines.filter(severe) + c.lines.filter { !severe($0) }
        return (Array(ordered.prefix(maxServerLinesShown)), max(0, ordered.count - maxServerLinesShown) + c.linesNotKept)
    }

    /// What stands under a row's server lines when some were left out.
    public static func moreLinesText(_ more: Int) -> String? {
        more > 0 ? "… \(more) more server line\(more == 1 ? "" : "s") (pbsift correlate --format json lists the first 100)" : nil
    }

    /// Requests named for a verdict: `#10 GET /v1/orders/open`, the first five, then how many more.
    static func named(_ requests: [CorrelatedRequest]) -> String {
        var parts = requests.prefix(5).map { r -> String in
            var s = r.entry.seq.map { "#\($0)" } ?? "#?"
            if let m = r.entry.method { s += " " + m }
            if let u = r.entry.url { s += " " + (WaterfallURL.hostAndPath(u) ?? "") }
            return s
        }
        if requests.count > 5 { parts.append("\(requests.count - 5) more") }
        return parts.joined(separator: ", ")
    }

    /// Whether every log given was read in full (true without logs): only then may a report say the
    /// server never saw a request.
    public var logsComplete: Bool { correlation?.logs.allErrors.isEmpty ?? true }

    /// What a request row shows in its status column: the HTTP status, `timed out`, or the state.
    public static func statusText(_ r: WaterfallRequest) -> String {
        if let code = r.statusCode { return String(code) }
        if r.timedOut { return "timed out" }
        return r.state ?? "—"
    }

    /// `→ 503`, `timed out (NSURLErrorDomain -1001)`, `cancelled`.
    public func outcomeText(_ r: WaterfallRequest) -> String {
        if let code = r.statusCode, code >= 400 { return "→ \(code)" }
        if let e = r.error, !e.isEmpty { return "failed: \(e)" }
        return r.state ?? "failed"
    }

    /// Where the time went, with the server's share when the logs tell it.
    public func whyText(_ r: WaterfallRequest) -> String {
        if let code = r.statusCode, code >= 400, r.elapsedMs < 1000 {
            return "not slow: the server answered \(code) after \(Human.duration(ms: r.elapsedMs))"
                + (r.error.map { " (\($0))" } ?? "")
        }
        var hosts: [String: (requests: Int, opened: Int)] = [:]
        if let h = r.host {
            if shownHosts.contains(h) {
                if let known = shownHostStats[h] { hosts[h] = known }
            } else if let all = allHostStats {
                if let known = all[h] { hosts[h] = known }
            } else {
                hosts = WaterfallSummary.hostStats(waterfall.sessions, hosts: [h])
            }
        }
        var why = WaterfallSummary.explain(r, hosts: hosts).sentence
        if let c = correlated(r), let server = c.serverMs, let gaveUp = Correlator.outlastedClient(c.entry, serverMs: server) {
            why += "; " + gaveUp
        } else if let c = correlated(r), let server = c.serverMs, let wait = c.waitingMs, server > wait {
            why += "; " + Correlator.longerThanWait(server: server, wait: wait)
        } else if let c = correlated(r), let server = c.serverMs, let wait = c.waitingMs {
            let network = c.networkMs ?? max(0, wait - server)
            let who = server >= network ? "the backend" : "the network"
            why +=
                "; \(who): server \(Human.duration(ms: server)) of \(Human.duration(ms: wait)) waiting, network and queueing \(Human.duration(ms: network))"
        } else if let c = correlated(r), c.status == .clientOnly {
            why +=
                !logsComplete
                ? "; no server line in the logs that were read (some could not be read)"
                : c.echoed
                    ? "; the server answered (the response echoed the request id) but no log line carries it"
                    : "; no server line: it never reached the server, or the logs don't cover it"
        }
        return why
    }

    /// A phase breakdown: `DNS 18 ms · TCP 31 ms · TLS 42 ms · waiting 121 ms`.
    public static func phasesText(_ r: WaterfallRequest) -> String {
        let sums = r.phaseSums
        let parts = WaterfallPhase.allCases.compactMap { p -> String? in
            guard let v = sums[p], v > 0 else { return nil }
            return "\(p.title) \(Human.duration(ms: v))"
        }
        return parts.isEmpty ? "no phases (only the total is known)" : parts.joined(separator: " · ")
    }

    /// The glyphs of `bar(_:)`, and what each means (the legend under every bar).
    public static let barGlyphs: [(Character, String)] = [
        ("-", "blocked"), ("d", "DNS"), ("t", "TCP"), ("s", "TLS"), ("^", "request"), ("=", "waiting"), ("#", "download"),
        ("x", "no response (timed out or failed)"), ("~", "no phase (total only)")
    ]

    /// `legend: - blocked  d DNS  …`.
    public static var legend: String {
        "legend: " + barGlyphs.map { "\($0.0) \($0.1)" }.joined(separator: "  ")
    }

    /// A one-line bar of the phases, `width` cells: `ddtttsssss=====#`. A request that failed without
    /// a response draws the time after its last phase as `x` (a time-out is mostly that).
    public static func bar(_ r: WaterfallRequest, width: Int = 48) -> String {
        let sums = r.phaseSums
        let phases = WaterfallPhase.allCases.reduce(0.0) { $0 + (sums[$1] ?? 0) }
        let noResponse = r.statusCode == nil && NetworkRecord.endedWithoutResponse(state: r.state)
        let rest = noResponse ? max(0, r.elapsedMs - phases) : 0
        let total = phases + rest
        guard total > 0, total.isFinite else { return String(repeating: noResponse ? "x" : "~", count: max(1, width / 4)) }
        let glyph: [WaterfallPhase: Character] = [
            .blocked: "-", .dns: "d", .tcp: "t", .tls: "s", .request: "^", .waiting: "=", .download: "#"
        ]
        var out = ""
        for p in WaterfallPhase.allCases {
            guard let v = sums[p], v > 0 else { continue }
            let n = max(1, Int((v / total * Double(width)).rounded()))
            out += String(repeating: glyph[p] ?? "?", count: n)
        }
        if rest > 0 { out += String(repeating: "x", count: max(1, width - out.count)) }
        return out
    }

    /// Failures whose windows share records, shown once: every failure of it marked.
    public struct FailureWindow: Sendable {
        public var input: String
        public var file: String
        public var sessionId: String?
        /// The failed records, in file order.
        public var failures: [Record]
        /// The records around them (the failures included), in file order, each once.
        public var records: [Record]

        /// `#31`, `#31, #38 and #42`.
        public var seqs: String {
            let all = failures.map { "#" + ($0.seq.map(String.init) ?? "?") }
            guard all.count > 1, let last = all.last else { return all.first ?? "#?" }
            return all.dropLast().joined(separator: ", ") + " and " + last
        }
    }

    /// The timeline's windows with overlapping ones (same file, shared records) merged.
    public static func merge(_ windows: [FailureTimeline.Window]) -> [FailureWindow] {
        var out: [FailureWindow] = []
        for w in windows {
            if var last = out.last, last.input == w.input, last.file == w.file,
                let end = last.records.last?.line, let start = w.records.first?.line, start <= end
            {
                last.failures.append(w.failed)
                last.records += w.records.filter { $0.line > end }
                out[out.count - 1] = last
            } else {
                out.append(FailureWindow(input: w.input, file: w.file, sessionId: w.sessionId, failures: [w.failed], records: w.records))
            }
        }
        return out
    }

    /// The timeline around failures: device records and each failed request's server lines (placed
    /// on the device clock with the skew), sorted by time. Texts are masked and not yet escaped.
    /// `time` is the entry's time as printed: a server line from a source that logs whole seconds
    /// is printed to the second (`Timestamp.format(_:wholeSecond:)`).
    public func timelineEntries(_ w: FailureWindow) -> [(ts: Double?, side: String, text: String, failed: Bool, time: String?)] {
        var out: [(Double?, String, String, Bool, String?)] = []
        let failedLines = Set(w.failures.map { [$0.line, $0.ordinal] })
        for r in w.records {
            let text = masked(SupportReport.summary(of: r, redactor: redactor).untrusted)
            let failed = failedLines.contains([r.line, r.ordinal])
            out.append(
                (
                    r.ts, failed ? "device ▶" : "device", "#\(r.seq.map(String.init) ?? "?") " + text, failed,
                    r.ts.map { Timestamp.format($0) }
                ))
        }
        var seen = Set<String>()
        for f in w.failures {
            guard let c = correlated(RecordRef(input: w.input, file: w.file, line: f.line, ordinal: f.ordinal)) else { continue }
            for pl in c.lines where seen.insert("\(pl.line.file)\u{0}\(pl.line.line)").inserted {
                let t = masked(SupportReport.serverText(pl, max: 200, redactor: redactor).untrusted)
                let time = pl.deviceTs.map { Timestamp.format($0, wholeSecond: pl.wholeSecond) }
                out.append((pl.deviceTs, "server", "\(pl.line.file):\(pl.line.line) \(t)", false, time))
            }
        }
        return out.enumerated().sorted { a, b in
            let ta = a.element.0 ?? .infinity, tb = b.element.0 ?? .infinity
            return ta != tb ? ta < tb : a.offset < b.offset
        }.map { $0.element }
    }

    /// A server line in a few words: level, status, duration, message (at most `max` characters).
    /// Redacted before it is cut, so a cut never leaves part of a credential for the detectors to miss.
    public static func serverText(_ pl: PlacedLine, max: Int, redactor: Redactor) -> String {
        let p = pl.line.parsed
        var parts = [p.level, p.status.map(String.init), p.durationMs.map { Human.duration(ms: $0) }, p.message].compactMap { $0 }
        // The line's other fields (`err=…`, `upstream=…`), in name order: a cause often stands there.
        // Those the message already shows (`cart=cart_8812` in a plain line) are not repeated.
        parts += p.fields.keys.sorted().compactMap { k in
            p.fields[k].map { "\(k)=\($0)" }.flatMap { pair in (p.message ?? "").contains(pair) ? nil : pair }
        }
        let head = redactor.text(parts.joined(separator: " ").untrusted).value
        // A stack trace after the line: the line naming its cause keeps room (each part redacted whole,
        // then cut).
        guard let cause = p.cause else { return String(head.prefix(max)) }
        let said = String(head.prefix(Swift.max(0, max / 2)))
        return String((said + " — cause: " + redactor.text(cause.untrusted).value).prefix(max))
    }

    /// One line for a record: `log error checkout: order failed`, `event flags.synced`, `POST …/v1/orders → 503`.
    /// Each part is redacted in its own kind (the URL as a URL) before anything is cut, so a cut
    /// never leaves part of a credential for the detectors to miss.
    public static func summary(of r: Record, redactor: Redactor) -> String {
        let j = r.json
        let t = { (s: String?) in redactor.text(s.untrusted).value }
        switch r.type {
        case .log:
            let label = t(j["label"]?.string).map { " \($0):" } ?? ""
            var s = "log \(t(j["level"]?.string) ?? "?")\(label) \(t(j["message"]?.string) ?? "")"
            if let e = t(j["error", "description"]?.string) { s += " (\(e))" }
            return String(s.prefix(240))
        case .event:
            return "event \(t(j["name"]?.string) ?? "?")"
        case .network:
            var s = "\(t(j["method"]?.string) ?? "?") \(String((redactor.url(j["url"]?.string.untrusted).value ?? "").prefix(120)))"
            if let code = j["statusCode"]?.int { s += " → \(code)" }
            if let st = t(j["state"]?.string), st != "success" { s += " [\(st)]" }
            if let e = t(j["error", "description"]?.string) { s += " (\(e))" }
            return s
        default:
            return r.typeName.isEmpty ? "record" : redactor.text(r.typeName.untrusted).value
        }
    }
}
