import Foundation
import SiftCore

/// How a request fared in the join.
public enum CorrelationStatus: String, Sendable, CaseIterable {
    /// At least one server line carries its id.
    case matched
    /// No server line: it never reached the server, or the logs don't cover it.
    case clientOnly = "client-only"
    /// The server echoed a different id than the one minted (a proxy rewrote it); both are searched.
    case idMismatch = "id-mismatch"
}

/// A server line placed on the device timeline.
public struct PlacedLine: Sendable, Equatable {
    /// The line as scanned (server clock).
    public var line: ServerLine
    /// The line's time on the device clock (server time minus the clock skew), when both are known.
    public var deviceTs: Double?
    /// Whether the request's id sits in a field of the line (a request-id member, a positional id field),
    /// not only inside free text someone outside the server controls (a logged URL, a message).
    public var idInField: Bool = true

    /// The line's time is a whole second (an access log's `[29/Nov/2026:10:15:55 +0000]`): moved to
    /// the device clock it is still known to the second only.
    public var wholeSecond: Bool { line.parsed.ts.map { $0 == $0.rounded(.down) } ?? false }
}

/// One request and what the logs say about it.
public struct CorrelatedRequest: Sendable, Equatable {
    /// The network record.
    public var entry: NetworkEntry
    /// How the join went.
    public var status: CorrelationStatus
    /// Its server lines, in file then line order.
    public var lines: [PlacedLine]
    /// The largest duration a server line reports (the outermost hop), milliseconds.
    public var serverMs: Double?
    /// Waiting time (requestEnd → responseStart), milliseconds.
    public var waitingMs: Double?
    /// Waiting time minus server time, never below 0: network and queueing.
    public var networkMs: Double?
    /// Whether the request's time (server clock) lies in the span some log file covers (± the window
    /// margin): a `client-only` request the logs cover never reached the server; one they don't may
    /// just be missing from them. Nil when no file's span or the request's time is known.
    public var logsCover: Bool?
    /// Server lines carrying its id past `CorrelationOptions.maxLinesPerRequest`: counted, not kept.
    public var linesNotKept = 0
}

extension CorrelatedRequest {
    /// Whether the response carried a request id back: a server (or what stands in front of it)
    /// answered, so a request with no log line was not "never seen".
    public var echoed: Bool { entry.echoedID != nil }
}

/// The server-minus-device clock offset.
public struct ClockSkew: Sendable, Equatable {
    /// Positive when the server clock is ahead; nil without samples.
    public var seconds: Double?
    /// Server lines with a timestamp joined to a request with `requestStart` and `responseStart`.
    public var samples: Int
    /// Half the width of the offsets all agreeing samples allow.
    public var uncertainty: Double?
    /// Samples that disagree with the largest agreeing group.
    public var outliers: Int
    /// What the estimate rests on: `request-id fields` (lines whose id sits in a field of its own; lines
    /// where it is only inside free text are then left out), `free text` (no line had it in a field), or `none`.
    public var basis: String = "none"
    /// Samples from lines with the id in a field.
    public var fieldSamples: Int = 0
    /// Samples from lines with the id only inside free text.
    public var textSamples: Int = 0
    /// The estimate the free-text lines alone give, when it disagrees with the fields' (they were not used).
    public var textSeconds: Double?

    public init(
        seconds: Double?, samples: Int, uncertainty: Double?, outliers: Int, basis: String = "none",
        fieldSamples: Int = 0, textSamples: Int = 0, textSeconds: Double? = nil
    ) {
        self.seconds = seconds
        self.samples = samples
        self.uncertainty = uncertainty
        self.outliers = outliers
        self.basis = basis
        self.fieldSamples = fieldSamples
        self.textSamples = textSamples
        self.textSeconds = textSeconds
    }
}

/// Ids seen in the logs inside a session's window that no record of it carries.
public struct ServerOnlyIDs: Sendable, Equatable {
    /// Sorted (held as 128-bit values: up to `ScanOptions.maxSeen` of them).
    public var ids: [RequestID] = []
    /// Those whose line also carries the session's `userId`, sorted.
    public var withUserId: [RequestID] = []

    public init(ids: [RequestID] = [], withUserId: [RequestID] = []) {
        self.ids = ids
        self.withUserId = withUserId
    }
}

/// One session's part of the join.
public struct CorrelatedSession: Sendable, Equatable {
    /// The session.
    public var entry: SessionEntry
    /// The window searched, on the device clock, margin included.
    public var windowFrom: Double?
    /// The end of the window searched (device clock, margin included).
    public var windowTo: Double?
    /// How many ids in the window none of the session's records carries (the ids themselves are
    /// listed once, for all sessions, in `CorrelationReport.serverOnly`: sessions that share their
    /// time would each hold the same hundred thousand ids).
    public var serverOnly = ServerOnlyCounts()
}

/// How many server-only ids a session's window holds.
public struct ServerOnlyCounts: Sendable, Equatable {
    /// Distinct ids in the window that none of the session's records carries.
    public var count = 0
    /// Those whose line also carries the session's `userId`.
    public var withUserId = 0

    public init(count: Int = 0, withUserId: Int = 0) {
        self.count = count
        self.withUserId = withUserId
    }
}

/// Options of the join.
public struct CorrelationOptions: Sendable {
    /// Seconds added on both sides of a session's window (after the clock skew is applied).
    public var windowMargin: Double = 60
    /// Extra seconds the scan allows on both sides, before the skew is known (skews up to this are handled).
    public var skewAllowance: Double = 900
    /// Server-only ids listed at most (the count stays exact).
    public var maxListedIds: Int = 10_000
    /// Server lines kept for one request (error and warning lines first); the rest are counted in
    /// `CorrelatedRequest.linesNotKept`, so a log whose every line carries every id cannot make the
    /// output grow as requests × lines.
    public var maxLinesPerRequest: Int = 100

    public init(windowMargin: Double = 60) { self.windowMargin = windowMargin }
}

/// Everything the correlate command reports.
public struct CorrelationReport: Sendable {
    /// Every joinable request, in reading order.
    public var requests: [CorrelatedRequest]
    /// Every session, in reading order.
    public var sessions: [CorrelatedSession]
    /// Across sessions, ids no analysed session carries.
    public var serverOnly: ServerOnlyIDs
    /// Whether window ids were dropped at `ScanOptions.maxSeen`.
    public var serverOnlyTruncated: Bool
    /// The server-minus-device clock offset.
    public var clockSkew: ClockSkew
    /// What the log scan found (files, bytes, line counts, errors). Its `lines` and `seen` are empty:
    /// the join placed the lines in `requests` and counted the window ids in `sessions` and `serverOnly`.
    public var logs: LogScanResult
    /// Network records without a request id (app traffic): not joinable.
    public var withoutRequestId: Int
    /// The margin applied to the session windows, seconds.
    public var windowMargin: Double
    /// The findings of the join, sorted.
    public var findings: [Finding]

    /// How many requests have status `s`.
    public func count(_ s: CorrelationStatus) -> Int {
        // Counted, not filtered: a filtered copy of a hundred thousand requests is tens of megabytes.
        var n = 0
        for r in requests where r.status == s { n += 1 }
        return n
    }
}

/// Joins network records with server log lines.
public enum Correlator {
    /// The ids to look for and the windows to watch, for a scan.
    public static func scanRequest(requests: [NetworkEntry], sessions: [SessionEntry], options: CorrelationOptions = CorrelationOptions())
        -> ScanRequest
    {
        var ids: [RequestID] = []
        for r in requests {
            if let m = r.mintedID { ids.append(m) }
            if let e = r.echoedID { ids.append(e) }
        }
        let pad = options.windowMargin + options.skewAllowance
        let windows = sessions.compactMap { s in s.window.map { (lo: $0.from - pad, hi: $0.to + pad) } }
        return ScanRequest(ids: RequestIDSet(ids), windows: windows, userIds: userIds(sessions))
    }

    /// Distinct user ids of the sessions, in first-seen order (the first 64 are watched).
    public static func userIds(_ sessions: [SessionEntry]) -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for s in sessions { if let u = s.userId, !u.isEmpty, seen.insert(u).inserted { out.append(u) } }
        return Array(out.prefix(64))
    }

    /// The join.
    public static func correlate(
        requests: [NetworkEntry], sessions: [SessionEntry], scan: LogScanResult,
        options: CorrelationOptions = CorrelationOptions()
    ) -> CorrelationReport {
        // Lines by id.
        var byID: [RequestID: [Int]] = [:]
        for (k, l) in scan.lines.enumerated() {
            for id in l.ids { byID[id, default: []].append(k) }
        }
        // A file whose durations are all a thousandth (or a thousand times) what the device waited is
        // read in the unit that fits, and says so.
        var scan = scan
        for (file, factor) in unitCorrections(requests: requests, scan: scan, byID: byID) {
            var was: [String] = []
            var now: [String] = []
            for k in scan.lines.indices where scan.lines[k].file == file {
                guard let d = scan.lines[k].parsed.durationMs else { continue }
                scan.lines[k].parsed.durationMs = d * factor
                let unit = scan.lines[k].parsed.durationUnit ?? "ms"
                let next = Self.unit(unit, times: factor)
                scan.lines[k].parsed.durationUnit = next
                if !was.contains(unit) { was.append(unit) }
                if !now.contains(next) { now.append(next) }
            }
            for k in scan.files.indices where scan.files[k].file == file {
                scan.files[k].readUnits.duration = now
                let nowText = now.joined(separator: ", "), wasText = was.joined(separator: ", ")
                scan.files[k].durationUnitNote =
                    "durations read in \(nowText), not \(wasText) as \(scan.files[k].format?.rawValue ?? "its format") reads them by default: read in \(wasText), each was \(factor > 1 ? "a thousandth of" : "a thousand times") the device's whole request"
            }
        }
        var joined: [CorrelatedRequest] = []
        joined.reserveCapacity(requests.count)
        var withoutID = 0
        var findings: [Finding] = []
        for r in requests {
            let minted = r.mintedID
            let echoed = r.echoedID
            if minted == nil && echoed == nil && (r.requestId ?? "").isEmpty && (r.echoedRequestId ?? "").isEmpty {
                withoutID += 1
                continue
            }
            var lineIdx: [Int] = []
            for id in [minted, echoed].compactMap({ $0 }) { lineIdx += byID[id] ?? [] }
            lineIdx = Array(Set(lineIdx)).sorted()
            var notKept = 0
            if lineIdx.count > options.maxLinesPerRequest {
                // Error and warning lines first, then the rest, each in file order.
                func severe(_ k: Int) -> Bool { scan.lines[k].parsed.isErrorOrWarning }
                let kept = Array((lineIdx.filter(severe) + lineIdx.filter { !severe($0) }).prefix(options.maxLinesPerRequest))
                notKept = lineIdx.count - kept.count
                lineIdx = kept.sorted()
            }
            // Compared as UUIDs when both parse (case does not matter), else as text.
            let mismatch =
                r.echoedRequestId != nil && r.requestId != nil
                && ((minted != nil && echoed != nil) ? minted != echoed : r.requestId != r.echoedRequestId)
            let status: CorrelationStatus = mismatch ? .idMismatch : (lineIdx.isEmpty ? .clientOnly : .matched)
            if mismatch {
                findings.append(
                    Finding(
                        rule: CorrelationRule.echoMismatch.id, severity: .medium, input: r.input, file: r.file,
                        sessionId: r.sessionId, seq: r.seq, line: r.line, recordId: r.recordId,
                        location: "echoedRequestId",
                        message:
                            "the server echoed \(r.echoedRequestId ?? "") for the minted \(r.requestId ?? ""): something between app and server rewrote the request id"
                    ))
            }
            let own = [minted, echoed].compactMap { $0 }
            var c = CorrelatedRequest(
                entry: r, status: status,
                lines: lineIdx.map { k in
                    let l = scan.lines[k]
                    return PlacedLine(line: l, deviceTs: nil, idInField: own.contains { l.parsed.fieldIDs.contains($0) })
                })
            c.linesNotKept = notKept
            if let rs = r.responseStart, let start = r.requestEnd ?? r.requestStart {
                c.waitingMs = max(0, (rs - start) * 1000)
            }
            c.serverMs = serverTime(c, findings: &findings)
            if let w = c.waitingMs, let s = c.serverMs { c.networkMs = max(0, w - s) }
            joined.append(c)
        }
        let skew = estimateSkew(joined)
        if let shift = inferredZone(skew, joined: joined, scan: scan) {
            // Times without a zone, and the clocks a whole number of quarter hours apart: the logs are in
            // local time. Read them in that zone and join again (once), saying so.
            var local = scan
            for k in local.lines.indices where local.lines[k].parsed.naiveTime {
                local.lines[k].parsed.ts = local.lines[k].parsed.ts.map { $0 - Double(shift.seconds) }
                local.lines[k].parsed.naiveTime = false
            }
            for k in local.files.indices where shift.files.contains(local.files[k].file) {
                local.files[k].firstTs = local.files[k].firstTs.map { $0 - Double(shift.seconds) }
                local.files[k].lastTs = local.files[k].lastTs.map { $0 - Double(shift.seconds) }
                local.files[k].inferredOffset = shift.seconds
            }
            var report = correlate(requests: requests, sessions: sessions, scan: local, options: options)
            report.findings.append(
                Finding(
                    rule: CorrelationRule.skewWholeHours.id, severity: .low, input: requests.first?.input ?? "", location: "clockSkew",
                    message:
                        "\(shift.files.sorted().joined(separator: ", ")) write\(shift.files.count == 1 ? "s" : "") times without a zone, a whole \(zoneName(shift.seconds).dropFirst(3)) from the device's clock: read as local time in \(zoneName(shift.seconds)); give --log-timezone if their zone is another"
                ))
            return report
        }
        findings += skewFindings(skew, input: requests.first?.input ?? "")
        findings += skewOutliers(joined, skew: skew)
        findings += unreadFields(scan.lines)
        let spans = scan.files.compactMap { f in f.firstTs.flatMap { a in f.lastTs.map { (a, $0) } } }
        if !spans.isEmpty {
            // The files' spans, margin included, merged once: a binary search per request.
            let covered = IntervalUnion(spans.map { (lo: $0.0 - options.windowMargin, hi: $0.1 + options.windowMargin) })
            for i in joined.indices {
                guard let t = joined[i].entry.requestStart ?? joined[i].entry.ts else { continue }
                let st = t + (skew.seconds ?? 0)
                joined[i].logsCover = covered.contains(st)
            }
        }
        if let s = skew.seconds {
            for i in joined.indices {
                for j in joined[i].lines.indices {
                    joined[i].lines[j].deviceTs = joined[i].lines[j].line.parsed.ts.map { $0 - s }
                }
            }
        }
        // Server-only ids per session, and across sessions.
        let only = serverOnly(
            requests: requests, sessions: sessions, seen: scan.seen, offset: skew.seconds ?? 0,
            margin: options.windowMargin)
        var outSessions: [CorrelatedSession] = []
        outSessions.reserveCapacity(sessions.count)
        for (k, s) in sessions.enumerated() {
            var cs = CorrelatedSession(entry: s)
            if let w = s.window {
                cs.windowFrom = w.from - options.windowMargin
                cs.windowTo = w.to + options.windowMargin
                cs.serverOnly = only.counts[k]
            }
            outSessions.append(cs)
        }
        let union = ServerOnlyIDs(ids: only.ids, withUserId: only.withUserId)
        // The join is done: the lines live on in `joined`, the window ids in the counts.
        var logs = scan
        logs.lines = []
        logs.seen = []
        return CorrelationReport(
            requests: joined, sessions: outSessions, serverOnly: union,
            serverOnlyTruncated: scan.droppedSeen > 0, clockSkew: skew, logs: logs,
            withoutRequestId: withoutID, windowMargin: options.windowMargin,
            findings: findings.sorted(by: Finding.reportOrder))
    }

    /// What `serverOnly` finds: per session (in the order given; zero without a window), and across sessions.
    struct ServerOnlyResult {
        var counts: [ServerOnlyCounts]
        var ids: [RequestID]
        var withUserId: [RequestID]
    }

    /// The ids seen in each session's window (device clock: `seen.ts - offset`, ± `margin`) that none of
    /// its records carries, counted per session; and, across sessions, those no record carries at all,
    /// sorted. Near-linear whatever the number of sessions: the seen ids are sorted by time once, each
    /// window is a range of them found by binary search, and the distinct ids of all ranges are counted
    /// together (`DistinctCount`) — a thousand sessions sharing one window with a hundred thousand ids
    /// cost a few sorts, not a hundred million set insertions.
    static func serverOnly(
        requests: [NetworkEntry], sessions: [SessionEntry], seen: [SeenID], offset: Double,
        margin: Double
    ) -> ServerOnlyResult {
        var result = ServerOnlyResult(counts: Array(repeating: ServerOnlyCounts(), count: sessions.count), ids: [], withUserId: [])
        guard !seen.isEmpty else { return result }
        let windows: [(lo: Double, hi: Double)?] = sessions.map { s in
            s.window.flatMap { w in
                let x = (lo: w.from - margin, hi: w.to + margin)
                return x.lo <= x.hi ? x : nil // NaN or empty: holds nothing
            }
        }
        var userBit: [String: Int] = [:]
        for (k, u) in userIds(sessions).enumerated() { userBit[u] = k }
        let bits: [Int?] = sessions.map { s in s.userId.flatMap { userBit[$0] } }
        var carriedAll: Set<RequestID> = []
        for r in requests {
            if let m = r.mintedID { carriedAll.insert(m) }
            if let e = r.echoedID { carriedAll.insert(e) }
        }

        // The seen ids by time. Those some record carries (none when the scan looked for these
        // records' ids: a wanted id is never a seen one) are kept apart and checked per session.
        struct Point {
            var t: Double
            var id: RequestID
            var mask: UInt64
        }
        var free: [Point] = []
        var carried: [Point] = []
        for s in seen {
            let t = s.ts - offset
            guard !t.isNaN else { continue }
            if carriedAll.contains(s.id) {
                carried.append(Point(t: t, id: s.id, mask: s.userMask))
            } else {
                free.append(Point(t: t, id: s.id, mask: s.userMask))
            }
        }
        free.sort { $0.t < $1.t }
        carried.sort { $0.t < $1.t }
        func range(_ points: [Point], _ w: (lo: Double, hi: Double)) -> Range<Int> {
            func first(_ past: (Double) -> Bool) -> Int {
                var lo = 0
                var hi = points.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if past(points[mid].t) { hi = mid } else { lo = mid + 1 }
                }
                return lo
            }
            let a = first { $0 >= w.lo }
            let b = first { $0 > w.hi }
            return a..<max(a, b)
        }

        // Dense numbers for the distinct free ids.
        var number: [RequestID: Int32] = [:]
        var values: [Int32] = []
        values.reserveCapacity(free.count)
        for p in free {
            if let n = number[p.id] {
                values.append(n)
            } else {
                let n = Int32(number.count)
                number[p.id] = n
                values.append(n)
            }
        }
        let ranges = windows.map { w in w.map { range(free, $0) } ?? 0..<0 }
        let counts = DistinctCount.count(values: values, distinct: number.count, ranges: ranges)
        for k in sessions.indices { result.counts[k].count = counts[k] }
        // With the session's user: per user, the subsequence of points whose line carries it.
        var sessionsOfUser: [Int: [Int]] = [:]
        for k in sessions.indices where windows[k] != nil {
            if let b = bits[k] { sessionsOfUser[b, default: []].append(k) }
        }
        for (b, members) in sessionsOfUser.sorted(by: { $0.key < $1.key }) {
            let bit: UInt64 = 1 << UInt64(b)
            let positions = free.indices.filter { free[$0].mask & bit != 0 }
            func lowerBound(_ x: Int) -> Int {
                var lo = 0
                var hi = positions.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if positions[mid] < x { lo = mid + 1 } else { hi = mid }
                }
                return lo
            }
            let sub = positions.map { values[$0] }
            let subRanges = members.map { k in lowerBound(ranges[k].lowerBound)..<lowerBound(ranges[k].upperBound) }
            let withUser = DistinctCount.count(values: sub, distinct: number.count, ranges: subRanges)
            for (j, k) in members.enumerated() { result.counts[k].withUserId = withUser[j] }
        }
        // Ids some record carries: counted for the sessions whose records do not.
        if !carried.isEmpty {
            var mine: [String: Set<RequestID>] = [:]
            let carriedSeen = Set(carried.map(\.id))
            for r in requests {
                for id in [r.mintedID, r.echoedID].compactMap({ $0 }) where carriedSeen.contains(id) {
                    mine[r.sessionId ?? "", default: []].insert(id)
                }
            }
            var ids: Set<RequestID> = []
            var withUser: Set<RequestID> = []
            for k in sessions.indices {
                guard let w = windows[k] else { continue }
                let own = mine[sessions[k].sessionId ?? ""] ?? []
                ids.removeAll(keepingCapacity: true)
                withUser.removeAll(keepingCapacity: true)
                for p in carried[range(carried, w)] where !own.contains(p.id) {
                    ids.insert(p.id)
                    if let b = bits[k], p.mask & (1 << UInt64(b)) != 0 { withUser.insert(p.id) }
                }
                result.counts[k].count += ids.count
                result.counts[k].withUserId += withUser.count
            }
        }
        // Across sessions: the ids no record carries, in some window (with its user: in the window of
        // a session of that user, on a line that carries it).
        let all = IntervalUnion(windows.compactMap { $0 })
        var union: Set<RequestID> = []
        for p in free where all.contains(p.t) { union.insert(p.id) }
        var unionUser: Set<RequestID> = []
        for (b, members) in sessionsOfUser {
            let bit: UInt64 = 1 << UInt64(b)
            let theirs = IntervalUnion(members.compactMap { windows[$0] })
            for p in free where p.mask & bit != 0 && theirs.contains(p.t) { unionUser.insert(p.id) }
        }
        result.ids = union.sorted()
        result.withUserId = unionUser.sorted()
        return result
    }

    /// Files whose durations are in another unit than their format's default (Apache's `%{ms}T` where
    /// `%D` is µs, gunicorn's `%(M)s`): every request that got a response and a duration from the file
    /// had, as read, a duration under 1/500 of the device's whole request, and the value × 1000 fits
    /// inside it (server time ≤ 110 % of the whole plus 10 ms) with a median of at least a fifth of it —
    /// or the mirror case, every duration over 500 times the whole and fitting once divided by 1000.
    /// The factor to multiply the file's durations by.
    static func unitCorrections(requests: [NetworkEntry], scan: LogScanResult, byID: [RequestID: [Int]]) -> [String: Double] {
        var ratios: [String: [Double]] = [:]
        for r in requests where r.statusCode != nil && r.state != "failure" && (r.responseEnd != nil || r.responseStart != nil) {
            guard let whole = wholeRequestMs(r), whole >= 5 else { continue }
            var seen: Set<Int> = []
            for id in [r.mintedID, r.echoedID].compactMap({ $0 }) {
                for k in byID[id] ?? [] where seen.insert(k).inserted {
                    guard let d = scan.lines[k].parsed.durationMs, d > 0 else { continue }
                    ratios[scan.lines[k].file, default: []].append(d / whole)
                }
            }
        }
        var out: [String: Double] = [:]
        for (file, rs) in ratios where !rs.isEmpty {
            let sorted = rs.sorted()
            let median = sorted[sorted.count / 2]
            let fitsUp = sorted.allSatisfy { $0 < 0.002 } && sorted.last! * 1000 <= 1.1 + 10 / 5 && median * 1000 >= 0.2
            let fitsDown = sorted.allSatisfy { $0 > 500 } && sorted.last! / 1000 <= 1.1 + 10 / 5 && median / 1000 >= 0.2
            if fitsUp { out[file] = 1000 } else if fitsDown { out[file] = 0.001 }
        }
        return out
    }

    /// The unit a thousand times larger (`times` 1000: µs → ms → s) or smaller (0.001) than `unit`.
    static func unit(_ unit: String, times factor: Double) -> String {
        let ladder = ["ns", "µs", "ms", "s"]
        guard let i = ladder.firstIndex(of: unit) else { return factor > 1 ? "ms" : "µs" }
        let j = factor > 1 ? i + 1 : i - 1
        return ladder.indices.contains(j) ? ladder[j] : "×\(factor) \(unit)"
    }

    /// The device's whole request, milliseconds: request start to the last response byte (or the record's duration).
    static func wholeRequestMs(_ e: NetworkEntry) -> Double? {
        if let a = e.requestStart, let b = e.responseEnd ?? e.responseStart, b >= a { return (b - a) * 1000 }
        return e.duration.flatMap { $0.isFinite && $0 >= 0 ? $0 * 1000 : nil }
    }

    /// The largest duration the request's lines report (lines with its id in a field when there are any),
    /// leaving out — as a finding — any larger than the device's whole request: a server cannot take
    /// longer than the client waited, so such a number is in another unit or belongs to another request.
    static func serverTime(_ c: CorrelatedRequest, findings: inout [Finding]) -> Double? {
        let trusted = c.lines.contains { $0.idInField } ? c.lines.filter(\.idInField) : c.lines
        // A request the device got no answer to (it timed out or was cancelled) bounds nothing: the
        // server may have gone on working after the client gave up, and that time is the diagnosis.
        guard !gaveUp(c.entry), let whole = wholeRequestMs(c.entry) else {
            // (A span of lines over ten minutes is an id met again later, not one request's work.)
            return trusted.compactMap { $0.line.parsed.durationMs }.max() ?? lineSpan(trusted).flatMap { $0 <= 600_000 ? $0 : nil }
        }
        let bound = whole * 1.1 + 10
        var best: Double?
        for p in trusted {
            guard let d = p.line.parsed.durationMs else { continue }
            if d <= bound { best = max(best ?? d, d); continue }
            let e = c.entry
            var why =
                "the server line \(p.line.file):\(p.line.line) (\(p.line.parsed.format)) reports \(fmt(d)) ms, more than the device's whole request (\(fmt(whole)) ms): not used"
            let ratio = d / max(whole, 0.001)
            if ratio > 500 { why += "; is its duration in another unit (read as \(p.line.parsed.format)'s; --log-format)?" }
            findings.append(
                Finding(
                    rule: CorrelationRule.serverTimeImplausible.id, severity: .medium, input: e.input, file: e.file,
                    sessionId: e.sessionId, seq: e.seq, line: e.line, recordId: e.recordId,
                    location: "\(p.line.file):\(p.line.line)", message: why))
        }
        // No line states a duration: the span from its first line to its last (a "started" and a
        // "finished" line, as django-structlog writes them), when it fits the device's request.
        if best == nil, let span = lineSpan(trusted), span <= bound { return span }
        return best
    }

    /// A request the device got no answer to, whose server time is longer than the device waited:
    /// what happened, in words (the client gave up; the server went on).
    public static func outlastedClient(_ e: NetworkEntry, serverMs: Double) -> String? {
        guard gaveUp(e), let whole = wholeRequestMs(e), serverMs > whole else { return nil }
        return "the device stopped waiting after \(fmt(whole)) ms, the server went on for \(fmt(serverMs)) ms"
    }

    /// A server time longer than the wait the device saw, explained rather than split: the server's
    /// clock runs from the request's first byte read to its last byte written, so it holds the upload
    /// and the download too (nginx's `$request_time`, Apache's `%D`).
    public static func longerThanWait(server: Double, wait: Double) -> String {
        "the server's own time (\(Human.duration(ms: server))) is longer than the wait the device saw (\(Human.duration(ms: wait))): "
            + "it counts reading the request and writing the response too, so the wait was the server's"
    }

    /// The device gave up on the request (it failed with no response: a timeout, a cancel).
    static func gaveUp(_ e: NetworkEntry) -> Bool { e.statusCode == nil && e.state == "failure" }

    /// Milliseconds from a request's first server line to its last, when they are apart.
    static func lineSpan(_ lines: [PlacedLine]) -> Double? {
        let times = lines.compactMap { $0.line.parsed.ts }
        guard times.count >= 2, let lo = times.min(), let hi = times.max(), hi > lo else { return nil }
        return (hi - lo) * 1000
    }

    /// Fields a format places that matched lines held but that could not be read: one finding per
    /// file and field, with how many lines and the first of them.
    static func unreadFields(_ lines: [ServerLine]) -> [Finding] {
        var seen: [String: (count: Int, first: ServerLine, field: String)] = [:]
        var order: [String] = []
        for l in lines {
            for f in l.parsed.unreadFields {
                let key = l.file + "\u{0}" + f
                if let s = seen[key] {
                    seen[key] = (s.count + 1, s.first, f)
                } else {
                    seen[key] = (1, l, f)
                    order.append(key)
                }
            }
        }
        return order.compactMap { seen[$0] }.map { s in
            Finding(
                rule: CorrelationRule.fieldUnread.id, severity: .medium, input: s.first.file, location: "\(s.first.file):\(s.first.line)",
                message:
                    "\(s.count) line\(s.count == 1 ? "" : "s") of \(s.first.file) (read as \(s.first.parsed.format)) hold\(s.count == 1 ? "s" : "") a \(s.field) that could not be read (first: line \(s.first.line)); --log-format picks another format"
            )
        }
    }

    /// Server lines whose time puts the clock more than a minute from the estimate (an id reused
    /// later, a forged line): named in one finding, never averaged in.
    static func skewOutliers(_ requests: [CorrelatedRequest], skew: ClockSkew) -> [Finding] {
        guard let s = skew.seconds else { return [] }
        var places: [String] = []
        var count = 0
        for r in requests {
            guard let a = r.entry.requestStart, let b = r.entry.responseStart else { continue }
            for l in r.lines {
                guard let t = l.line.parsed.ts, t - max(a, b) > s + 60 || t + 1 - min(a, b) < s - 60 else { continue }
                count += 1
                if places.count < 5 { places.append("\(l.line.file):\(l.line.line)") }
            }
        }
        guard count > 0 else { return [] }
        return [
            Finding(
                rule: CorrelationRule.skewOutlier.id, severity: .medium, input: requests.first?.entry.input ?? "", location: "clockSkew",
                message:
                    "\(count) server line\(count == 1 ? "" : "s") carrying a request's id put the server clock more than 60 s from the estimate (\(places.joined(separator: ", "))\(count > places.count ? ", …" : "")): an id reused later, or another request's line; not used for the skew"
            )
        ]
    }

    static func fmt(_ d: Double) -> String { d >= 100 ? String(format: "%.0f", d) : String(format: "%.1f", d) }

    /// The zone of logs written in local time without a zone: every line that joined a request and
    /// gave a time wrote it without a zone, and the skew is a whole number of quarter hours (15 min to
    /// 14 h) give or take two minutes. Nil otherwise (a zone given with `--log-timezone`, zoned times,
    /// a skew of minutes: a device clock that is off).
    static func inferredZone(_ skew: ClockSkew, joined: [CorrelatedRequest], scan: LogScanResult) -> (seconds: Int, files: Set<String>)? {
        guard let s = skew.seconds, abs(s) >= 900 - 120, abs(s) <= 14 * 3600 + 120 else { return nil }
        let quarters = (s / 900).rounded()
        guard quarters != 0, abs(s - quarters * 900) <= 120 else { return nil }
        let timed = joined.flatMap { $0.lines.map(\.line) }.filter { $0.parsed.ts != nil }
        guard !timed.isEmpty, timed.allSatisfy({ $0.parsed.naiveTime }) else { return nil }
        return (Int(quarters) * 900, Set(timed.map(\.file)))
    }

    /// `UTC+01:00`, `UTC-05:30`.
    public static func zoneName(_ seconds: Int) -> String {
        let m = abs(seconds) / 60
        return String(format: "UTC%@%02d:%02d", seconds < 0 ? "-" : "+", m / 60, m % 60)
    }

    /// Findings on the skew: free-text lines that disagree with the request-id fields; an offset close to a
    /// whole number of hours (or half hours), the sign of server logs written in local time.
    static func skewFindings(_ skew: ClockSkew, input: String) -> [Finding] {
        var out: [Finding] = []
        if let field = skew.seconds, let text = skew.textSeconds {
            out.append(
                Finding(
                    rule: CorrelationRule.skewDisagreement.id, severity: .medium, input: input, location: "clockSkew",
                    message: String(
                        format:
                            "lines where a request id appears only inside free text (%d samples) put the clock skew at %+.3f s, the lines with it in a request-id field (%d samples) at %+.3f s: the free-text lines were not used",
                        skew.textSamples, text, skew.fieldSamples, field)))
        }
        if let s = skew.seconds, abs(s) >= 1800 - 120 {
            let steps = (s / 1800).rounded()
            if abs(s - steps * 1800) <= 120 {
                let hours = steps / 2
                out.append(
                    Finding(
                        rule: CorrelationRule.skewWholeHours.id, severity: .medium, input: input, location: "clockSkew",
                        message: String(
                            format:
                                "the server clock is %@ the device's by %g h (%+.0f s): are the server logs in local time? (--log-timezone)",
                            s > 0 ? "ahead of" : "behind", abs(hours), s)))
            }
        }
        return out
    }

    /// Estimates the server-minus-device offset with Marzullo's algorithm.
    ///
    /// Each server line of a request happened, on the device clock, between the request's
    /// `requestStart` and `responseStart`; so its offset lies in [ts − responseStart, ts − requestStart]
    /// (widened by one second for a time without a fraction: it stands for any moment in that second).
    /// The offset is the middle of the region that the largest number of those intervals share (the
    /// intersection of all of them when they agree), and the uncertainty half its width. Samples outside
    /// that region are outliers (another server's clock, a line logged after the response).
    ///
    /// Only the lines that carry the request's id in a field count when there are any (free-text lines can
    /// be planted by anyone who gets a string logged); the free-text lines' own estimate is kept when it
    /// disagrees.
    public static func estimateSkew(_ requests: [CorrelatedRequest]) -> ClockSkew {
        // Servers that share a line shape do not all stamp the same moment (Apache's `%t` is the
        // request's arrival, gunicorn's and hypercorn's the moment they log it): when reading each time
        // as the other end of the request leaves fewer lines outside the agreed region, the lines say so.
        let declared = estimateSkew(requests, reading: .declared)
        let shared = requests.contains { r in r.lines.contains { sharedMark($0) != nil } }
        guard declared.outliers > 0 || shared else { return declared }
        let flipped = estimateSkew(requests, reading: .flipped)
        if flipped.outliers < declared.outliers { return flipped }
        // A shape that servers stamp differently, whose lines fit both readings equally: the lines do
        // not tell which moment they mark, so neither is assumed.
        if shared, flipped.outliers == declared.outliers { return estimateSkew(requests, reading: .either) }
        return declared
    }

    /// How a line's time is read against its format's declared moment (`TimeMark`).
    enum MarkReading {
        /// As the format declares.
        case declared
        /// The other end of the request: the start for the end, the end for the start.
        case flipped
        /// Either moment, for a shape other servers stamp differently (`sharedWithMark`).
        case either
    }

    static func sharedMark(_ l: PlacedLine) -> TimeMark? { LogCatalogue.entry(named: l.line.parsed.format.rawValue)?.sharedWithMark }

    static func estimateSkew(_ requests: [CorrelatedRequest], reading: MarkReading) -> ClockSkew {
        typealias Sample = (hard: (Double, Double), likely: (Double, Double))
        var field: [Sample] = []
        var text: [Sample] = []
        var byLine: [Sample] = []
        for r in requests where r.status != .clientOnly {
            guard let a = r.entry.requestStart, let b = r.entry.responseStart else { continue }
            let lo = min(a, b), hi = max(a, b)
            let (last, gaveUp) = lastMoment(r.entry, requestStart: a, responseStart: hi)
            for l in r.lines {
                guard let t = l.line.parsed.ts else { continue }
                let hard = skewInterval(
                    l, at: t, requestStart: lo, responseStart: hi, responseEnd: last, reading: reading, gaveUp: gaveUp)
                let likely = likelyInterval(
                    l, at: t, requestStart: lo, responseStart: hi, responseEnd: last, reading: reading, within: hard)
                if l.line.joinedBy == .requestLine {
                    byLine.append((hard, likely))
                } else if l.idInField {
                    field.append((hard, likely))
                } else {
                    text.append((hard, likely))
                }
            }
        }
        // Lines joined by method, path and time count only where no id tied any line.
        if field.isEmpty && text.isEmpty && !byLine.isEmpty {
            var s = estimate(byLine)
            s.basis = JoinBasis.requestLine.rawValue
            s.textSamples = 0
            return s
        }
        if field.isEmpty {
            var s = estimate(text)
            s.basis = text.isEmpty ? "none" : "free text"
            s.textSamples = text.count
            return s
        }
        var s = estimate(field)
        s.basis = "request-id fields"
        s.fieldSamples = field.count
        s.textSamples = text.count
        if !text.isEmpty, let f = s.seconds {
            let t = estimate(text)
            if let ts = t.seconds, abs(ts - f) > max(1.0, (s.uncertainty ?? 0) + (t.uncertainty ?? 0) + 0.5) { s.textSeconds = ts }
        }
        return s
    }

    /// The region the most samples' hard intervals share; inside it, when whole-second times leave it
    /// wide, the point the samples' likely intervals agree on (see `likelyInterval`). The uncertainty
    /// stays the hard region's: the likely point is a better guess, not a proof.
    static func estimate(_ samples: [(hard: (Double, Double), likely: (Double, Double))]) -> ClockSkew {
        var s = marzullo(samples.map(\.hard))
        guard let mid = s.seconds, let half = s.uncertainty,
            samples.contains(where: { $0.hard != $0.likely })
        else { return s }
        let likely = marzullo(samples.map(\.likely))
        if let point = likely.seconds, likely.outliers == s.outliers, abs(point - mid) <= half {
            s.seconds = point
        }
        return s
    }

    /// The device's last moment on a request: the response's end (at least `hi`), or, for a request it
    /// gave up on (no status), when it gave up (its start plus duration, or its record's time).
    static func lastMoment(_ e: NetworkEntry, requestStart a: Double, responseStart hi: Double) -> (last: Double, gaveUp: Bool) {
        let end = e.responseEnd.map { max($0, hi) } ?? hi
        guard e.record.statusCode == nil else { return (end, false) }
        let given = max(e.record.duration.flatMap { $0.isFinite && $0 >= 0 ? a + $0 : nil } ?? a, e.record.ts ?? a)
        return (max(end, given), true)
    }

    /// The offsets one server line allows. The line happened, on the device clock, between the request's
    /// start and its response's start: offset in [t − responseStart, t − requestStart]; a whole-second
    /// time (an access log's `[29/Nov/2026:10:15:02 +0000]`) stands for any moment of the second after
    /// it. When the format says which moment its time marks and the line gives the server's duration d,
    /// the other end of the server's work is known too and must also fall inside the request: a time
    /// written at completion gives a start t − d no earlier than the request's start, a start time an
    /// end t + d no later than the response's last byte. That narrows a second-wide interval to the
    /// network's share of it, which is what makes whole-second logs agree to tens of milliseconds.
    /// A request the device gave up on (`gaveUp`: no status) may have gone on at the server for longer
    /// than the device waited: a time written at completion then stands `d` after the moment the server
    /// took the request, which fell inside the device's request.
    static func skewInterval(
        _ l: PlacedLine, at t: Double, requestStart lo: Double, responseStart hi: Double, responseEnd last: Double,
        reading: MarkReading = .declared, gaveUp: Bool = false
    ) -> (Double, Double) {
        let resolution = l.wholeSecond ? 1.0 : 0.0
        var lower = t - hi, upper = t + resolution - lo
        guard let ms = l.line.parsed.durationMs, ms > 0, ms.isFinite else { return (lower, upper) }
        let d = ms / 1000
        let mark = timeMark(l, reading)
        if d > last - lo {
            // Longer than the device's whole exchange: the server went on after the device gave up
            // (its start, t − d, fell inside the request), or the number is another unit or request.
            guard gaveUp, mark == .end || mark == .logged, d < 3600 else { return (lower, upper) }
            return (t - d - last, t - d + resolution - lo)
        }
        switch mark {
        case .end, .logged:
            lower = t - last
            upper = Swift.max(lower, upper - d)
        case .start:
            lower = Swift.min(upper, t + d - last)
        case .unknown:
            break
        }
        return (lower, upper)
    }

    /// Which moment of its request a line's time marks, as its format declares, read as `reading` says.
    static func timeMark(_ l: PlacedLine, _ reading: MarkReading) -> TimeMark {
        let entry = LogCatalogue.entry(named: l.line.parsed.format.rawValue)
        let mark = entry?.timeMarks ?? .unknown
        switch reading {
        case .declared: return mark
        case .flipped: return mark == .start ? .end : mark == .end ? .start : mark
        case .either: return entry?.sharedWithMark == nil ? mark : .unknown
        }
    }

    /// The offsets a whole-second line allows if the network took as long each way: the server's work,
    /// `d` long, centred in the device's wait between sending the request and the response's first byte
    /// (or in the whole exchange, when the work outlasts that wait, as nginx's `$request_time` does with
    /// the response's writing). The second after `t` then gives an interval exactly one second wide,
    /// kept inside the hard interval. Lines with sub-second times keep their hard interval.
    static func likelyInterval(
        _ l: PlacedLine, at t: Double, requestStart lo: Double, responseStart hi: Double, responseEnd last: Double,
        reading: MarkReading, within hard: (Double, Double)
    ) -> (Double, Double) {
        guard l.wholeSecond else { return hard }
        let d = l.line.parsed.durationMs.flatMap { $0 > 0 && $0.isFinite ? $0 / 1000 : nil } ?? 0
        guard d <= last - lo else { return hard }
        let mark = timeMark(l, reading)
        let centre = d <= hi - lo ? (lo + hi) / 2 : (lo + last) / 2
        let moment: Double
        switch mark {
        case .end, .logged: moment = centre + d / 2
        case .start: moment = centre - d / 2
        case .unknown: moment = centre
        }
        let lower = Swift.max(hard.0, t - moment), upper = Swift.min(hard.1, t + 1 - moment)
        return lower <= upper ? (lower, upper) : hard
    }

    /// The region shared by the most intervals: its middle, half its width, and how many intervals miss it.
    public static func marzullo(_ intervals: [(Double, Double)]) -> ClockSkew {
        guard !intervals.isEmpty else { return ClockSkew(seconds: nil, samples: 0, uncertainty: nil, outliers: 0) }
        // Starts sort before ends at the same value: closed intervals that touch overlap.
        var edges: [(Double, Int)] = []
        for (lo, hi) in intervals { edges.append((lo, +1)); edges.append((hi, -1)) }
        edges.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 > $1.1 }
        var depth = 0
        var best = 0
        var regions: [(Double, Double)] = []
        for (k, e) in edges.enumerated() {
            depth += e.1
            if e.1 > 0 {
                if depth > best {
                    best = depth
                    regions = []
                }
                if depth == best {
                    // The region runs to the next edge.
                    let next = k + 1 < edges.count ? edges[k + 1].0 : e.0
                    regions.append((e.0, next))
                }
            }
        }
        // Merge touching regions and pick the middle one.
        var merged: [(Double, Double)] = []
        for r in regions {
            if let last = merged.last, r.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, r.1) } else { merged.append(r) }
        }
        // Regions the same number of samples share (ids reused an hour later give a second group as
        // large as the first): the one nearest a zero offset, as clocks mostly are.
        let pick = merged.min { abs(($0.0 + $0.1) / 2) < abs(($1.0 + $1.1) / 2) } ?? merged[(merged.count - 1) / 2]
        return ClockSkew(
            seconds: (pick.0 + pick.1) / 2, samples: intervals.count, uncertainty: (pick.1 - pick.0) / 2,
            outliers: intervals.count - best)
    }
}

extension Correlator {
    /// Scans `logs` for the ids of `requests` and joins: the whole of `pbsift correlate` after reading.
    public static func run(
        requests: [NetworkEntry], sessions: [SessionEntry], logs: [String],
        options: CorrelationOptions = CorrelationOptions(), scanOptions: ScanOptions = ScanOptions()
    ) -> CorrelationReport {
        let request = scanRequest(requests: requests, sessions: sessions, options: options)
        var scan = LogScanner(request: request, options: scanOptions).scan(paths: logs)
        // A log with no id at all: its lines are tied to the requests by method, path and time.
        scan = RequestLineJoin.amend(scan, requests: requests, read: scanOptions.read)
        return correlate(requests: requests, sessions: sessions, scan: scan, options: options)
    }
}
