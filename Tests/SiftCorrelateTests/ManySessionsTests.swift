import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

/// The join over many sessions: server-only ids counted per window through an index, not a set per
/// session over every id seen; the same counts as counting them one by one.
@Suite struct ManySessionsTests {
    /// A reproducible stream of numbers.
    struct Stream {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
    }

    static let t0 = Timestamp.parse("2026-11-29T10:00:00Z")!

    func id(_ n: Int) -> RequestID { RequestID(hi: 0x3333_4444, lo: UInt64(n)) }

    /// `sessions` sessions (some sharing a session id, some without a window or a user), one or two
    /// requests each, and `seen` window ids, some of them carried by a record.
    func world(sessions count: Int, seen: Int, users: Int, spread: Double, seed: UInt64)
        -> (requests: [NetworkEntry], sessions: [SessionEntry], scan: LogScanResult)
    {
        var g = Stream(state: seed)
        var sessions: [SessionEntry] = []
        var requests: [NetworkEntry] = []
        for k in 0..<count {
            let sid = "ses_\(g.next(4) == 0 ? k / 2 : k)"
            let from = Self.t0 + Double(g.next(Int(spread) + 1))
            var s = SessionEntry(
                input: "export", file: "s\(k).jsonl", sessionId: sid,
                userId: g.next(10) == 0 ? nil : "usr_\(g.next(users))")
            if g.next(20) != 0 {
                s.launchedAt = from
                s.firstTs = from
                s.lastTs = from + Double(g.next(300))
            }
            sessions.append(s)
            for j in 0..<(1 + g.next(2)) {
                let minted = "req_00000000-1111-2222-0000-\(String(format: "%012x", k * 4 + j))"
                requests.append(
                    NetworkEntry(
                        input: "export", file: s.file, sessionId: sid, seq: j + 1, line: j + 2,
                        requestId: RequestID(minted)!.description, echoedRequestId: minted))
            }
        }
        var scan = LogScanResult()
        for _ in 0..<seen {
            // One id in eight is a record's own (a scan for other records' ids).
            // `req_00000000-1111-2222-0000-…` as the records mint them, or one of their own.
            let rid = g.next(8) == 0 ? RequestID(hi: 0x1111_2222, lo: UInt64(g.next(count * 4))) : id(g.next(seen / 2 + 1))
            let t = g.next(50) == 0 ? Double.nan : Self.t0 - 200 + Double(g.next(Int(spread) + 600))
            scan.seen.append(SeenID(id: rid, ts: t, userMask: g.next(3) == 0 ? UInt64(1) << UInt64(g.next(users)) : 0))
        }
        return (requests, sessions, scan)
    }

    /// The counts the way the join once made them: per session, every seen id checked against its window.
    func reference(requests: [NetworkEntry], sessions: [SessionEntry], seen: [SeenID], offset: Double, margin: Double)
        -> (counts: [ServerOnlyCounts], ids: [RequestID], withUser: [RequestID])
    {
        let users = Correlator.userIds(sessions)
        var carriedAll: Set<RequestID> = []
        var carried: [String: Set<RequestID>] = [:]
        for r in requests {
            for id in [r.mintedID, r.echoedID].compactMap({ $0 }) {
                carriedAll.insert(id)
                carried[r.sessionId ?? "", default: []].insert(id)
            }
        }
        var counts: [ServerOnlyCounts] = []
        var unionIDs: Set<RequestID> = []
        var unionUser: Set<RequestID> = []
        for s in sessions {
            guard let w = s.window else { counts.append(ServerOnlyCounts()); continue }
            let mine = carried[s.sessionId ?? ""] ?? []
            let bit: UInt64? = s.userId.flatMap { u in users.firstIndex(of: u) }.map { 1 << UInt64($0) }
            var ids: Set<RequestID> = []
            var withUser: Set<RequestID> = []
            for seen in seen {
                let t = seen.ts - offset
                guard t >= w.from - margin, t <= w.to + margin, !mine.contains(seen.id) else { continue }
                ids.insert(seen.id)
                if let b = bit, seen.userMask & b != 0 { withUser.insert(seen.id) }
                if !carriedAll.contains(seen.id) {
                    unionIDs.insert(seen.id)
                    if let b = bit, seen.userMask & b != 0 { unionUser.insert(seen.id) }
                }
            }
            counts.append(ServerOnlyCounts(count: ids.count, withUserId: withUser.count))
        }
        return (counts, unionIDs.sorted(), unionUser.sorted())
    }

    @Test(arguments: [(1 as UInt64, 5.0, 0.0), (2, 60.0, 3.5), (3, 0.0, -2.0), (4, 60.0, 0.25)])
    func indexedCountsEqualCountingOneByOne(_ seed: UInt64, _ margin: Double, _ offset: Double) {
        // More users than the 64 watched; windows overlapping, touching and apart.
        let (requests, sessions, scan) = world(sessions: 300, seen: 4000, users: 70, spread: 3000, seed: seed)
        let fast = Correlator.serverOnly(requests: requests, sessions: sessions, seen: scan.seen, offset: offset, margin: margin)
        let slow = reference(requests: requests, sessions: sessions, seen: scan.seen, offset: offset, margin: margin)
        #expect(fast.counts == slow.counts)
        #expect(fast.ids == slow.ids)
        #expect(fast.withUserId == slow.withUser)
        #expect(slow.counts.contains { $0.withUserId > 0 } && !slow.ids.isEmpty)
    }

    @Test func sessionsSharingOneWindowAreJoinedInSeconds() throws {
        // 2000 sessions over the same minutes and 20 000 lines of other ids in the logs: counted one by
        // one, some thirty million set insertions (minutes in a debug build); indexed, a few sorts.
        let (requests, sessions, scan) = world(sessions: 2000, seen: 20_000, users: 64, spread: 10, seed: 9)
        let started = Date()
        let report = Correlator.correlate(requests: requests, sessions: sessions, scan: scan)
        let took = Date().timeIntervalSince(started)
        #expect(took < 30, "\(took) s")
        #expect(report.sessions.count == 2000)
        #expect(report.sessions.filter { $0.serverOnly.count > 2000 }.count > 1000, "\(report.sessions.map(\.serverOnly.count).max() ?? 0)")
        #expect(report.serverOnly.ids.count > 4000)
    }

    @Test func logsCoverIsASearchOverMergedSpans() {
        // Thousands of log files, each covering a second: a request is covered when its time lies in
        // one of them (± the margin), touching bounds included.
        var scan = LogScanResult()
        for k in 0..<5000 {
            var f = LogFileSummary(file: "api-\(k).log", encoding: "plain")
            f.firstTs = Self.t0 + Double(k * 10)
            f.lastTs = Self.t0 + Double(k * 10) + 1
            scan.files.append(f)
        }
        var requests: [NetworkEntry] = []
        for (k, dt) in [0.0, 5.99, 6.0, 49_991, 49_996.01, -5, -5.01, .nan].enumerated() {
            requests.append(
                NetworkEntry(
                    input: "export", file: "s.jsonl", sessionId: "ses_1", seq: k + 1, line: k + 2,
                    requestId: "req_00000000-1111-2222-0000-\(String(format: "%012x", k))", ts: Self.t0 + dt))
        }
        let options = CorrelationOptions(windowMargin: 5)
        let report = Correlator.correlate(requests: requests, sessions: [], scan: scan, options: options)
        #expect(report.requests.map(\.logsCover) == [true, true, true, true, false, true, false, nil])
    }
}
