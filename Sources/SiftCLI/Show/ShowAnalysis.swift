import Foundation
import SiftCore
import SiftReport
import SiftWaterfall

/// Which request `pbsift show` explains: a `seq` number, a request id (`req_…`) or a record id.
public enum ShowSelector: Sendable, Equatable {
    case seq(Int)
    case requestId(String)
    case recordId(String)

    /// `52` is a seq, `req_…` a request id, anything else a record id (`rec_…`).
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty else { return nil }
        if t.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard let n = Int(t) else { return nil }
            self = .seq(n)
        } else if t.hasPrefix("req_") {
            self = .requestId(t)
        } else {
            self = .recordId(t)
        }
    }

    /// Whether a network record is the one asked for.
    func matches(_ r: Record) -> Bool {
        switch self {
        case .seq(let n): return r.seq == n
        case .requestId(let id): return r.json["requestId"]?.string == id || r.json["echoedRequestId"]?.string == id
        case .recordId(let id): return r.id == id
        }
    }
}

/// Finds the request `show` explains while the export streams past, with the records around it
/// (at most `maxAround` on each side within `context` seconds), and what exists when it is not there.
/// Only the first match is kept whole: a neighbour over `maxWholeBytes`, and every later match (only
/// its place is listed), is kept as the slim copy a timeline shows (`FailureTimeline.slim`).
final class ShowAnalysis: Analysis, @unchecked Sendable {
    /// One network record that matched, with its neighbours in file order.
    struct Match {
        var input: String
        var file: String
        var sessionId: String?
        /// The header's `userId`; nil when signed out or when the session has no header.
        var userId: String?
        var hasHeader: Bool
        var record: Record
        var before: [Record]
        var after: [Record]

        /// Where the matched record is (the join key with the waterfall and the correlation).
        var ref: RecordRef { RecordRef(input: input, file: file, line: record.line, ordinal: record.ordinal) }
    }

    /// A session the selector looked in.
    struct SessionSeen {
        var input: String
        var file: String
        var sessionId: String?
        /// Seqs of its network records (for "the nearest are …").
        var requestSeqs: [Int]
        /// The type of every record by seq, for a seq that is not a request (bounded).
        var otherSeqs: [Int: String]
    }

    let selector: ShowSelector
    let session: String?
    let context: Double
    let maxAround: Int
    /// The first `maxMatches` records that matched, with their neighbours (only the first is shown;
    /// the others name the sessions when several hold the request).
    private(set) var matches: [Match] = []
    static let maxMatches = 5
    /// Every record that matched, and the session files they are in (a file is read in one go, so a
    /// new place is a file other than the last match's).
    private(set) var matchCount = 0
    private(set) var placeCount = 0
    private var lastPlace: (input: String, file: String)?
    private(set) var sessions: [SessionSeen] = []
    /// Network records with a request id, in the sessions looked in.
    private(set) var requestIdCount = 0

    private var recent: [Record] = []
    private var open: Int?
    private var currentIndex: Int?
    private var header: JSONValue?

    /// A neighbour record with a longer line is kept slim.
    static let maxWholeBytes = 64 << 10

    /// `r` whole when small, else its slim copy.
    private static func around(_ r: Record) -> Record {
        r.json.doc.bytes.count > maxWholeBytes ? FailureTimeline.slim(r) : r
    }

    init(selector: ShowSelector, session: String?, context: Double = 10, maxAround: Int = 12) {
        self.selector = selector
        self.session = session
        self.context = context
        self.maxAround = maxAround
    }

    func beginSession(_ s: SessionContext) {
        recent.removeAll()
        open = nil
        header = nil
        currentIndex = nil
    }

    private func current(_ s: SessionContext) -> Int? {
        if let i = currentIndex { return i }
        let id = s.sessionId
        guard SessionSelector.matches(session, id) else { return nil }
        sessions.append(SessionSeen(input: s.input.path, file: s.file, sessionId: id, requestSeqs: [], otherSeqs: [:]))
        currentIndex = sessions.count - 1
        return currentIndex
    }

    func record(_ r: Record, session s: SessionContext) {
        if r.type == .session {
            header = r.json
            return
        }
        guard let k = current(s) else { return }
        if let m = open {
            let end = matches[m].record.ts.map { $0 + context }
            if matches[m].after.count >= maxAround || (end != nil && (r.ts ?? 0) > (end ?? 0)) {
                open = nil
            } else {
                matches[m].after.append(ShowAnalysis.around(r))
            }
        }
        if r.type == .network {
            if let q = r.seq, sessions[k].requestSeqs.count < 1_000_000 { sessions[k].requestSeqs.append(q) }
            if r.json["requestId"]?.string != nil { requestIdCount += 1 }
            if selector.matches(r) {
                matchCount += 1
                if lastPlace?.input != s.input.path || lastPlace?.file != s.file {
                    placeCount += 1
                    lastPlace = (s.input.path, s.file)
                }
            }
            if selector.matches(r) && matches.count < ShowAnalysis.maxMatches {
                let t = r.ts
                let before = recent.filter { p in
                    guard let pt = p.ts, let t else { return true }
                    return pt >= t - context
                }.suffix(maxAround)
                let user = header.flatMap { Record.heldText($0, "userId") }
                if matches.isEmpty {
                    matches.append(
                        Match(
                            input: s.input.path, file: s.file, sessionId: s.sessionId, userId: user,
                            hasHeader: header != nil && !s.fromHAR, record: r, before: Array(before), after: []))
                    open = matches.count - 1
                } else {
                    // Shown only by its place: it is slim, with no neighbours.
                    matches.append(
                        Match(
                            input: s.input.path, file: s.file, sessionId: s.sessionId, userId: user,
                            hasHeader: header != nil && !s.fromHAR, record: FailureTimeline.slim(r), before: [], after: []))
                    open = nil
                }
            }
        } else if case .seq = selector, let q = r.seq, sessions[k].otherSeqs.count < 100_000 {
            sessions[k].otherSeqs[q] = r.typeName
        }
        recent.append(ShowAnalysis.around(r))
        if recent.count > maxAround { recent.removeFirst(recent.count - maxAround) }
    }

    func endSession(_ s: SessionContext) {
        if let k = currentIndex, sessions[k].sessionId == nil { sessions[k].sessionId = s.sessionId }
        currentIndex = nil
        open = nil
    }

    /// Why nothing matched, with what exists: the nearest request seqs, or how many request ids the
    /// export holds.
    func notFoundMessage() -> String {
        if let wanted = session, sessions.isEmpty {
            return "no session matches '--session \(wanted)' in this export"
        }
        var seqs: [Int] = []
        for s in sessions { seqs += s.requestSeqs }
        var other: String?
        if case .seq(let n) = selector { other = sessions.compactMap { $0.otherSeqs[n] }.first }
        return ShowAnalysis.notFound(selector, requestSeqs: seqs, otherType: other, requestIdCount: requestIdCount)
    }

    /// The message for a request that is not in the export's `sessions` (as `waterfall` read them).
    static func notFound(_ selector: ShowSelector, sessions: [WaterfallSession]) -> String {
        let requests = sessions.flatMap(\.requests)
        return notFound(
            selector, requestSeqs: requests.compactMap(\.seq), otherType: nil,
            requestIdCount: requests.filter { $0.requestId != nil }.count)
    }

    /// "no request with seq 99 in this export; the nearest requests are seq 48, 50, 52 (33 requests,
    /// seq 3 to 52)", "no request id req_… in this export (18 requests carry a request id)".
    static func notFound(_ selector: ShowSelector, requestSeqs: [Int], otherType: String?, requestIdCount: Int) -> String {
        switch selector {
        case .seq(let n):
            var msg = "no request with seq \(n) in this export"
            if let type = otherType {
                let article = type.first.map { "aeiou".contains($0) } ?? false ? "an" : "a"
                msg = "seq \(n) is \(article) \(type) record, not a request"
            }
            let unique = Array(Set(requestSeqs)).sorted()
            guard let lo = unique.first, let hi = unique.last else { return msg + "; it holds no request" }
            let nearest = unique.sorted { abs($0 - n) != abs($1 - n) ? abs($0 - n) < abs($1 - n) : $0 < $1 }.prefix(3).sorted()
            msg += "; the nearest requests are seq " + nearest.map(String.init).joined(separator: ", ")
            msg += " (\(unique.count) request\(unique.count == 1 ? "" : "s"), seq \(lo) to \(hi))"
            return msg
        case .requestId(let id):
            return "no request id \(id) in this export (\(requestIdCount) request\(requestIdCount == 1 ? "" : "s") carry a request id)"
        case .recordId(let id):
            return "no record id \(id) in this export (use a seq, a request id req_… or a record id rec_…)"
        }
    }
}
