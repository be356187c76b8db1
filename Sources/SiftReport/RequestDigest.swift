import Foundation
import SiftCore
import SiftWaterfall

/// What the report reads of the waterfall's requests when it does not print the waterfall document
/// (every format but JSON and HTML), taken session by session as each one ends
/// (`WaterfallAnalysis(sessionsTo:)`) so that no session is held after it: the first failed requests
/// and their count, the slowest failed one, the slowest that did not fail, and per host its requests
/// and how many opened a connection. Memory is bounded by what is shown (`maxFailedShown` and
/// `slowest` requests), the number of distinct hosts (texts the waterfall's pool holds anyway) and a
/// few session ids. The same results, in the same order, as `SupportReport` computes from every
/// session (a test holds them equal); the requests are raw until `SupportReport` redacts them.
public final class RequestDigest: @unchecked Sendable {
    /// How many of the slowest requests that did not fail are kept.
    public let slowest: Int
    private let lock = NSLock()
    private(set) var failed: [WaterfallRequest] = []
    private(set) var failedCount = 0
    private(set) var slowestFailed: WaterfallRequest?
    /// The slowest that did not fail, slowest first (ties by seq, then session, then request).
    private var slow: [(ms: Double, seq: Int, s: Int, r: Int, request: WaterfallRequest)] = []
    /// Per raw host: requests, and how many opened a connection.
    private(set) var hosts: [String: (requests: Int, opened: Int)] = [:]
    /// The distinct session ids of the requests, in order, at most `maxSessionIds` (more: `manyIds`).
    private(set) var sessionIds: [String?] = []
    private(set) var manyIds = false
    private var sessionCount = 0
    static let maxSessionIds = 16

    public init(slowest: Int) { self.slowest = max(0, slowest) }

    /// The slowest requests that did not fail, slowest first.
    var slowRequests: [WaterfallRequest] { slow.map(\.request) }

    /// Takes one finished session (sessions in the order they end).
    public func add(_ session: WaterfallSession) {
        lock.lock()
        defer { lock.unlock() }
        let si = sessionCount
        sessionCount += 1
        // Each request's facts read in place (a request copied whole retains every text it holds);
        // only the few kept are copied.
        // Requests come in runs of one host (one shared text): a run is counted, then added once,
        // instead of hashing every request's host (twice).
        var runs = HostRuns()
        defer { runs.flush(into: &hosts) }
        session.forEachRequest(hosts: []) { ri, r in
            let sessionId = r.sessionId
            if !manyIds && !sessionIds.contains(sessionId) {
                if sessionIds.count < RequestDigest.maxSessionIds { sessionIds.append(sessionId) } else { manyIds = true }
            }
            runs.add(r.host, opened: r.openedConnection, into: &hosts)
            let ms = r.elapsedMs
            if r.failed {
                failedCount += 1
                if failed.count < SupportReport.maxFailedShown { failed.append(session.requests[ri]) }
                if slowestFailed.map({ ms > $0.elapsedMs }) ?? true { slowestFailed = session.requests[ri] }
            } else if !r.pending && slowest > 0 {
                let c = (ms: ms, seq: r.seq ?? 0, s: si, r: ri)
                if slow.count == slowest, let worst = slow.last, !RequestDigest.before(c, (worst.ms, worst.seq, worst.s, worst.r)) {
                    return
                }
                // The first place whose candidate comes after this one.
                var lo = 0, hi = slow.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    let m = slow[mid]
                    if RequestDigest.before((m.ms, m.seq, m.s, m.r), c) { lo = mid + 1 } else { hi = mid }
                }
                slow.insert((c.ms, c.seq, c.s, c.r, session.requests[ri]), at: lo)
                if slow.count > slowest { slow.removeLast() }
            }
        }
    }

    /// The order of the slowest: longer first; equal times by seq, then in record order.
    static func before(_ a: (ms: Double, seq: Int, s: Int, r: Int), _ b: (ms: Double, seq: Int, s: Int, r: Int)) -> Bool {
        if a.ms != b.ms { return a.ms > b.ms }
        if a.seq != b.seq { return a.seq < b.seq }
        return a.s != b.s ? a.s < b.s : a.r < b.r
    }
}

/// Requests come in runs of one host (one shared text): a run is counted, then added to the host
/// counts once, instead of hashing every request's host.
struct HostRuns {
    private var run: String? = nil
    private var count = (requests: 0, opened: 0)

    /// Counts one request of `host` (nil: none, not counted); a run that ends is added to `hosts`.
    mutating func add(_ host: String?, opened: Bool, into hosts: inout [String: (requests: Int, opened: Int)]) {
        if host != run {
            flush(into: &hosts)
            run = host
        }
        if host != nil {
            count.requests += 1
            if opened { count.opened += 1 }
        }
    }

    /// Adds the run being counted to `hosts`.
    mutating func flush(into hosts: inout [String: (requests: Int, opened: Int)]) {
        defer { count = (0, 0) }
        guard let h = run, count.requests > 0 else { return }
        hosts[h, default: (0, 0)].requests += count.requests
        hosts[h, default: (0, 0)].opened += count.opened
    }
}
