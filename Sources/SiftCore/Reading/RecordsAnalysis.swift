import Foundation

/// Which records `pbsift records` keeps.
public struct RecordFilter: Sendable {
    /// `network`, `log`, `event`, `frame`, `unknown` (empty: all).
    public var types: Set<String> = []
    /// Keep only log records at or above this level.
    public var minLevel: String?
    /// Keep only records with one of these labels.
    public var labels: Set<String> = []
    /// Status codes (`503`) or classes (`5xx`); network records only.
    public var statuses: [String] = []
    public var since: Double?
    public var until: Double?
    /// Seq numbers (a range `10-20` is given as its numbers): records with one of them.
    public var seqs: Set<Int> = []
    /// Request ids (`req_…`, minted or echoed; case does not matter) and record ids (`rec_…`).
    public var ids: Set<String> = []
    /// Matched against the record as it is printed (redacted, one JSON line), never against the
    /// stored text: a guessed secret can't be confirmed by a match.
    public var grep: NSRegularExpression?

    public init() {}

    /// Log levels in order (SESSION-FORMAT.md §2.5).
    public static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// `52` or `10-20` as the seq numbers it names (at most 100 000); nil for anything else.
    public static func seqs(_ s: String) -> [Int]? {
        let parts = s.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isNumber) }),
            let a = Int(parts[0]), let b = parts.count == 2 ? Int(parts[1]) : a, a <= b, b - a < 100_000
        else { return nil }
        return Array(a...b)
    }

    /// Parses `5xx`, `404`, `2xx`…; nil for anything else.
    public static func validStatus(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 3, (0x31...0x35).contains(u[0]) else { return false }
        let rest = u[1...]
        return rest.allSatisfy { (0x30...0x39).contains($0) } || rest.allSatisfy { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") }
    }

    public func keeps(_ r: Record) -> Bool {
        if r.type == .session { return false }
        if !seqs.isEmpty {
            guard let s = r.seq, seqs.contains(s) else { return false }
        }
        if !ids.isEmpty {
            let own = [r.json["requestId"]?.string, r.json["echoedRequestId"]?.string, r.json["id"]?.string]
            guard own.contains(where: { $0.map { ids.contains($0.lowercased()) } ?? false }) else { return false }
        }
        if !types.isEmpty && !types.contains(r.type.countKey) { return false }
        if let minLevel {
            guard r.type == .log, let lv = r.json["level"]?.string,
                let have = RecordFilter.levels.firstIndex(of: lv), let want = RecordFilter.levels.firstIndex(of: minLevel),
                have >= want
            else { return false }
        }
        if !labels.isEmpty {
            guard let l = r.json["label"]?.string, labels.contains(l) else { return false }
        }
        if !statuses.isEmpty {
            guard let code = r.json["statusCode"]?.int else { return false }
            let text = String(code)
            let hit = statuses.contains { st in
                let lower = st.lowercased()
                if lower.hasSuffix("xx") { return text.count == 3 && text.first == lower.first }
                return lower == text
            }
            if !hit { return false }
        }
        if since != nil || until != nil {
            guard let t = r.ts else { return false }
            if let since, t < since { return false }
            if let until, t > until { return false }
        }
        return true
    }
}

/// Streams every kept record, flattened and redacted, to `emit` as it is read (nothing accumulates).
public final class RecordsAnalysis: Analysis {
    let filter: RecordFilter
    let line: (Record, SessionContext) -> SafeText
    let emit: (Record, SessionContext, SafeText?) -> Void
    package private(set) var emitted = 0

    /// `line`: the record as it is printed in JSON Lines (flattened, redacted, with its newline), what
    /// `--grep` is matched against. `emit` prints a kept record, handed the line when `--grep` made it.
    public init(
        filter: RecordFilter, line: @escaping (Record, SessionContext) -> SafeText,
        emit: @escaping (Record, SessionContext, SafeText?) -> Void
    ) {
        self.filter = filter
        self.line = line
        self.emit = emit
    }

    public func record(_ record: Record, session: SessionContext) {
        guard filter.keeps(record) else { return }
        var text: SafeText?
        if let grep = filter.grep {
            let made = line(record, session)
            var s = made.string
            if s.hasSuffix("\n") { s.removeLast() }
            if grep.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) == nil { return }
            text = made
        }
        emitted += 1
        emit(record, session, text)
    }
}
