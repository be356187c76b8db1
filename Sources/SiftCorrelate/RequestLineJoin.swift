import Foundation
import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Requests a log names by no id: a load balancer's default log (AWS ALB), nginx's `combined`. When a
/// file read as a server log holds no wanted id at all, its lines are read again for the requests the
/// ids did not find, by method and path; the clock offset most of those candidates agree on (the
/// region `Correlator.marzullo` finds, each candidate allowing what its time and duration allow) picks,
/// for each request, the one line that fits it. A request with two lines that fit is left unmatched
/// (another client may have asked for the same path in the same second). The lines joined this way
/// say so (`ServerLine.joinedBy`), and the file says how many it joined.
enum RequestLineJoin {
    /// Bounds: a file is read again only up to this many bytes (inflated), all files together up to
    /// `maxTotalBytes`, for this many paths; a file past them says so.
    static let maxBytes: Int64 = 512 << 20
    static let maxTotalBytes: Int64 = 2 << 30
    static let maxPaths = 64
    /// Candidate lines kept per file.
    static let maxCandidates = 20_000
    /// The clock skew a join without ids allows (as the window ids' scan does), and its margin.
    static let skewPad: Double = 960
    /// Names of a request-id field, as logs write them: a line holding one names its request by id.
    static let idNames = [
        "request_id", "requestId", "RequestId", "request-id", "Request-Id", "X-Request-ID", "x-request-id", "req_id", "reqId",
        "correlation_id", "correlationId", "X-Correlation-ID"
    ].map { Array($0.utf8) }

    struct Wanted {
        var request: Int
        var method: String
        var path: String
        var id: RequestID
        /// The status the device got, if it got a response.
        var status: Int?
        /// The URL's query, when it has one (values the SDK masked, `***`, match any).
        var query: [String: String]?
    }

    struct Candidate {
        var file: String
        var lineNumber: Int
        var parsed: ParsedLine
        var requests: [Int]
    }

    /// `scan` with the lines joined by method, path and time added.
    static func amend(_ scan: LogScanResult, requests: [NetworkEntry], read: LogReadOptions) -> LogScanResult {
        let found = Set(scan.lines.flatMap(\.ids))
        var wanted: [Wanted] = []
        for (k, r) in requests.enumerated() {
            let ids = [r.mintedID, r.echoedID].compactMap { $0 }
            guard let id = ids.first, !ids.contains(where: found.contains), r.requestStart != nil, waitEnd(r) != nil,
                let method = r.method, let url = r.url, let path = pathOf(url)
            else { continue }
            let status = r.responseStart != nil ? r.record.statusCode.flatMap { (100...599).contains($0) ? $0 : nil } : nil
            wanted.append(Wanted(request: k, method: method.uppercased(), path: path, id: id, status: status, query: queryOf(url)))
        }
        guard !wanted.isEmpty else { return scan }
        var out = scan
        var budget = maxTotalBytes
        let paths = Set(wanted.map(\.path))
        for (f, file) in scan.files.enumerated()
        where file.matchedLines == 0 && file.error == nil && file.readsAsLog != false && file.lines > 0 {
            guard paths.count <= maxPaths else {
                out.files[f].joinNote =
                    "no request id in this file; \(paths.count) paths are more than the \(maxPaths) looked for without one"
                continue
            }
            guard budget > 0 else {
                out.files[f].joinNote =
                    "no request id in this file; not read again for method, path and time (past \(maxTotalBytes >> 30) GiB read so)"
                continue
            }
            guard
                let (candidates, pass) = candidates(
                    in: file, wanted: wanted, paths: paths, requests: requests, read: read, limit: min(maxBytes, budget))
            else { continue }
            budget -= pass.bytes
            if pass.namesIds {
                out.files[f].joinNote =
                    "none of these requests' ids is in this file, whose lines carry request ids of their own: not joined without one"
                continue
            }
            if pass.cut {
                out.files[f].joinNote =
                    "no request id in this file; read again for method, path and time up to \(pass.bytes >> 20) MiB only"
            }
            let joined = match(candidates, wanted: wanted, requests: requests)
            var ambiguous = 0
            for j in joined {
                guard let c = j.candidate else {
                    ambiguous += 1
                    continue
                }
                var line = ServerLine(file: c.file, line: c.lineNumber, ids: [wanted[j.wanted].id], parsed: c.parsed)
                line.joinedBy = .requestLine
                out.lines.append(line)
                out.files[f].matchedLines += 1
            }
            let n = joined.count - ambiguous
            guard n > 0 || ambiguous > 0 else { continue }
            var note = "no request id in this file: \(n) request\(n == 1 ? "" : "s") matched by method, path and time"
            if pass.cut { note += " (read again up to \(pass.bytes >> 20) MiB only)" }
            if ambiguous > 0 { note += " (\(ambiguous) left unmatched: more than one line fits)" }
            out.files[f].joinNote = note
            if n > 0, out.files[f].fieldsRead.isEmpty {
                var read: [LogField] = []
                let mine = out.lines.filter { $0.file == file.file }
                if mine.contains(where: { $0.parsed.ts != nil }) { read.append(.time) }
                if mine.contains(where: { $0.parsed.status != nil }) { read.append(.status) }
                if mine.contains(where: { $0.parsed.durationMs != nil }) { read.append(.duration) }
                out.files[f].fieldsRead = read
                for l in mine { out.files[f].readUnits.add(l.parsed) }
            }
        }
        return out
    }

    /// When the device stopped waiting: the response's first byte, or, for a request that got none (it
    /// failed or was cancelled), the end of its duration.
    static func waitEnd(_ r: NetworkEntry) -> Double? {
        if let b = r.responseStart { return b }
        guard let a = r.requestStart, let d = r.record.duration, d.isFinite, d >= 0 else { return nil }
        return a + d
    }

    /// `/v1/auth/token` of `https://api.example.com:443/v1/auth/token?client=ios` (or of the path alone).
    static func pathOf(_ url: String) -> String? {
        var s = Substring(url)
        if let scheme = s.range(of: "://") {
            s = s[scheme.upperBound...]
            guard let slash = s.firstIndex(of: "/") else { return "/" }
            s = s[slash...]
        }
        guard s.first == "/" else { return nil }
        if let q = s.firstIndex(where: { $0 == "?" || $0 == "#" }) { s = s[..<q] }
        return s.isEmpty ? nil : String(s)
    }

    /// The query of a URL or request target, decoded (`?page=1&q=a%20b` → page: 1, q: a b); nil without one.
    static func queryOf(_ url: String) -> [String: String]? {
        let pairs = URLQuery.rawPairs(of: url)
        guard !pairs.isEmpty else { return nil }
        func decoded(_ s: Substring) -> String { String(decoding: Percent.decode(Array(s.utf8), plusIsSpace: true), as: UTF8.self) }
        var out: [String: String] = [:]
        for (name, value) in pairs { out[decoded(name)] = decoded(value) }
        return out
    }

    /// Whether a request's query and a line's name the same request: the same names, and the same value
    /// under each unless the device's is masked (`***`). Either side without a query says nothing.
    static func sameQuery(_ device: [String: String]?, _ line: [String: String]?) -> Bool {
        guard let device, let line else { return true }
        guard Set(device.keys) == Set(line.keys) else { return false }
        return device.allSatisfy { k, v in v.contains("***") || line[k] == v }
    }

    /// The lines of `file` holding one of the wanted paths, read by the catalogue; nil when the file
    /// cannot be read again (standard input, a pipe) or is past the bound.
    static func candidates(
        in file: LogFileSummary, wanted: [Wanted], paths: Set<String>, requests: [NetworkEntry], read: LogReadOptions, limit: Int64
    )
        -> ([Candidate], (bytes: Int64, cut: Bool, namesIds: Bool))?
    {
        guard file.file != "-" else { return nil }
        let fd = PathBytes.cString(file.file).withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let source = LogScanner.inflated(FileSource(fileDescriptor: fd), limit: Int64.max)
        let needles = paths.map { Array($0.utf8) }
        var byPath: [String: [Int]] = [:]
        for (k, w) in wanted.enumerated() { byPath[w.path, default: []].append(k) }
        var out: [Candidate] = []
        let options = read
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var lineNumber = 0
        var total: Int64 = 0
        // The requests' time, widened by the skew a join allows (a line with a zone), or by a day's
        // zones (one without): a line far outside it is no candidate, and is not parsed.
        let starts = wanted.compactMap { requests[$0.request].requestStart }
        let ends = wanted.compactMap { waitEnd(requests[$0.request]) }
        let span = (lo: starts.min() ?? 0, hi: ends.max() ?? 0)
        var seconds = LogTime.SecondCache()
        // Lines with a wanted path that name a request id of their own: when nearly all do, the file
        // ties lines to requests by id, and ours are not in it.
        var looked = 0, named = 0
        var namesIds = false
        func look(_ line: UnsafeBufferPointer<UInt8>) {
            lineNumber += 1
            guard !namesIds, out.count < maxCandidates, let base = line.baseAddress, line.count > 0 else { return }
            guard needles.contains(where: { n in n.withUnsafeBufferPointer { ByteSearch.find(base, line.count, $0) != nil } }) else {
                return
            }
            looked += 1
            if idNames.contains(where: { n in n.withUnsafeBufferPointer { ByteSearch.find(base, line.count, $0) != nil } }) {
                named += 1
                if looked >= 200 && named * 10 >= looked * 9 { namesIds = true }
                return
            }
            if let (t, zoned) = LogTime.findZoned(in: base, count: min(line.count, 4096), cache: &seconds) {
                let pad = zoned ? skewPad : skewPad + 15 * 3600
                if t < span.lo - pad || t > span.hi + pad { return }
            }
            let parsed = LineParser.parse(line, hint: file.format, options: options)
            guard let method = parsed.method?.uppercased(), let p = parsed.path.flatMap(pathOf), let ks = byPath[p] else { return }
            // The status, when the device got one, is the line's (a proxy's 502 is the device's 502 too).
            // The query too, when both tell one: another page or parameter is another request.
            let lineQuery = parsed.path.flatMap(queryOf)
            let mine = ks.filter { k in
                wanted[k].method == method && (wanted[k].status == nil || parsed.status == nil || wanted[k].status == parsed.status)
                    && sameQuery(wanted[k].query, lineQuery)
            }
            // A line that names its request by an id (not one of ours) is another request.
            guard !mine.isEmpty, parsed.ts != nil, parsed.fieldIDs.isEmpty, !namesAnId(Array(line)) else { return }
            out.append(Candidate(file: file.file, lineNumber: lineNumber, parsed: parsed, requests: mine))
        }
        var cut = false
        while !namesIds && out.count < maxCandidates {
            guard total < limit else {
                cut = true
                break
            }
            let n = (try? buffer.withUnsafeMutableBytes { try source.read(into: $0) }) ?? 0
            guard n > 0 else { break }
            total += Int64(n)
            buffer.withUnsafeBufferPointer { b in
                var start = 0
                for i in 0..<n where b[i] == 0x0A {
                    if pending.isEmpty {
                        look(UnsafeBufferPointer(rebasing: b[start..<i]))
                    } else {
                        pending.append(contentsOf: b[start..<i])
                        pending.withUnsafeBufferPointer { look($0) }
                        pending.removeAll(keepingCapacity: true)
                    }
                    start = i + 1
                }
                // A line longer than the scan's bound is not a request line.
                if pending.count + (n - start) <= 1 << 20 { pending.append(contentsOf: b[start..<n]) } else { pending.removeAll() }
            }
        }
        if !pending.isEmpty && !cut { pending.withUnsafeBufferPointer { look($0) } }
        if namesIds { return ([], (total, cut, true)) }
        // Past the candidates kept, the rest of the file was not looked at: said as a cut.
        return (out, (total, cut || out.count >= maxCandidates, false))
    }

    /// Whether a line has a field that names a request id (`request_id`, `X-Request-Id`, `rid=`),
    /// whatever its value: such a log ties lines to requests by id, and ours are not in it.
    static func namesAnId(_ line: [UInt8]) -> Bool {
        let v = LineView(LogWrapper.peel(line).inner, focus: nil)
        func names(_ key: String) -> Bool {
            let last = key.split(separator: ".").last.map(String.init) ?? key
            return LineParser.idKeys.contains(LineParser.normalize(last))
        }
        if v.isJSON { return v.order.contains { k in names(k) && !(v.flat[k]?.text.isEmpty ?? true) } }
        return v.pairs.contains { names($0.key) }
    }

    /// For each wanted request with a candidate: the one line that fits the offset most candidates agree
    /// on, or nil when more than one does.
    static func match(_ candidates: [Candidate], wanted: [Wanted], requests: [NetworkEntry]) -> [(wanted: Int, candidate: Candidate?)] {
        var intervals: [(Double, Double)] = []
        var fits: [[(Candidate, (Double, Double))]] = Array(repeating: [], count: wanted.count)
        for c in candidates {
            for k in c.requests {
                let r = requests[wanted[k].request]
                guard let t = c.parsed.ts, let a = r.requestStart, let b = waitEnd(r) else { continue }
                let lo = min(a, b), hi = max(a, b)
                let (last, gaveUp) = Correlator.lastMoment(r, requestStart: a, responseStart: hi)
                let placed = PlacedLine(line: ServerLine(file: c.file, line: c.lineNumber, ids: [], parsed: c.parsed), deviceTs: nil)
                let interval = Correlator.skewInterval(
                    placed, at: t, requestStart: lo, responseStart: hi, responseEnd: last, gaveUp: gaveUp)
                intervals.append(interval)
                fits[k].append((c, interval))
            }
        }
        let agreed = Correlator.marzullo(intervals)
        guard let offset = agreed.seconds else { return [] }
        // The region must be shared by two requests at least, unless only one was looked for.
        let looked = fits.filter { !$0.isEmpty }.count
        guard looked == 1 || agreed.samples - agreed.outliers >= 2 else { return [] }
        let slack = (agreed.uncertainty ?? 0) + 0.001
        var used = Set<String>()
        var out: [(wanted: Int, candidate: Candidate?)] = []
        for (k, list) in fits.enumerated() where !list.isEmpty {
            let fitting = list.filter { $0.1.0 <= offset + slack && $0.1.1 >= offset - slack }
            guard !fitting.isEmpty else { continue }
            if fitting.count > 1 {
                out.append((k, nil))
                continue
            }
            let c = fitting[0].0
            let key = "\(c.file)\u{0}\(c.lineNumber)"
            guard !used.contains(key) else {
                out.append((k, nil))
                continue
            }
            used.insert(key)
            out.append((k, c))
        }
        return out
    }
}
