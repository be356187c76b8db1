import Foundation
import SiftCore

/// Writes requests as JSON bytes exactly as `JSONWriter` writes them member by member (keys sorted,
/// `JSONOut`'s layout), at a fixed indentation: every member's start (`,`, the new line, its
/// indentation, its quoted name and `: `) is one copy of bytes laid out once per indentation, and
/// the bytes go to a buffer of its own without `Array`'s checks on every append. A large export
/// prints a hundred thousand requests; this is most of the waterfall's JSON. Tests hold it equal
/// to `WaterfallRender.requestJSON` printed through `JSONWriter`.
struct RequestJSONWriter {
    /// The member starts, in the order `Piece` numbers them, one after the other.
    private let blob: [UInt8]
    /// `Piece` k's bytes: `blob[starts[k]..<starts[k + 1]]`.
    private let starts: [Int]
    let pretty: Bool
    let indent: Int

    /// The pieces of a request's text between its values.
    enum Piece: Int, CaseIterable {
        // The request's members (the first one opens the object).
        case category, durationMs, error, hasMetrics, kind, label, method, offsetMs, recordId, requestId, seq,
            sessionId, source, start, state, statusCode, totalMs, transactions, url, requestEnd
        // A transaction: its start as the first element or a later one, its members, its end.
        case firstTransaction, nextTransaction
        case txAnomalies, txFetchType, txIndex, txNetworkProtocol, txOffsetMs, txPhases, txRemoteAddress, txRemotePort,
            txReusedConnection, txStatusCode, txTLSVersion, txTotalMs, txURL, transactionEnd
        // An anomaly: the first or a later one; the end of a list that has some.
        case firstAnomaly, nextAnomaly, anomaliesEnd
        // The phases' members and end.
        case blocked, dns, download, request, tcp, tls, waiting, phasesEnd
        // The end of a list of transactions that has some.
        case transactionsEnd
    }

    init(pretty: Bool, indent: Int) {
        self.pretty = pretty
        self.indent = indent
        var blob: [UInt8] = []
        var starts: [Int] = []
        func line(_ depth: Int) -> [UInt8] { pretty ? [0x0A] + [UInt8](repeating: 0x20, count: max(0, indent + 2 * depth)) : [] }
        func member(_ name: String, depth: Int, first: Bool) -> [UInt8] {
            (first ? [] : [0x2C]) + line(depth) + Array("\"\(name)\"\(pretty ? ": " : ":")".utf8)
        }
        for p in Piece.allCases {
            starts.append(blob.count)
            let bytes: [UInt8]
            switch p {
            case .category: bytes = [0x7B] + member("category", depth: 1, first: true)
            case .durationMs, .error, .hasMetrics, .kind, .label, .method, .offsetMs, .recordId, .requestId, .seq,
                .sessionId, .source, .start, .state, .statusCode, .totalMs, .transactions, .url:
                bytes = member("\(p)", depth: 1, first: false)
            case .requestEnd: bytes = line(0) + [0x7D]
            case .firstTransaction: bytes = line(2) + [0x7B] + member("anomalies", depth: 3, first: true)
            case .nextTransaction: bytes = [0x2C] + line(2) + [0x7B] + member("anomalies", depth: 3, first: true)
            case .txAnomalies: bytes = []
            case .txFetchType: bytes = member("fetchType", depth: 3, first: false)
            case .txIndex: bytes = member("index", depth: 3, first: false)
            case .txNetworkProtocol: bytes = member("networkProtocol", depth: 3, first: false)
            case .txOffsetMs: bytes = member("offsetMs", depth: 3, first: false)
            case .txPhases: bytes = member("phases", depth: 3, first: false) + [0x7B] + member("blocked", depth: 4, first: true)
            case .txRemoteAddress: bytes = member("remoteAddress", depth: 3, first: false)
            case .txRemotePort: bytes = member("remotePort", depth: 3, first: false)
            case .txReusedConnection: bytes = member("reusedConnection", depth: 3, first: false)
            case .txStatusCode: bytes = member("statusCode", depth: 3, first: false)
            case .txTLSVersion: bytes = member("tlsVersion", depth: 3, first: false)
            case .txTotalMs: bytes = member("totalMs", depth: 3, first: false)
            case .txURL: bytes = member("url", depth: 3, first: false)
            case .transactionEnd: bytes = line(2) + [0x7D]
            case .firstAnomaly: bytes = line(4)
            case .nextAnomaly: bytes = [0x2C] + line(4)
            case .anomaliesEnd: bytes = line(3) + [0x5D]
            case .blocked: bytes = []
            case .dns, .download, .request, .tcp, .tls, .waiting: bytes = member("\(p)", depth: 4, first: false)
            case .phasesEnd: bytes = line(3) + [0x7D]
            case .transactionsEnd: bytes = line(1) + [0x5D]
            }
            blob += bytes
        }
        starts.append(blob.count)
        self.blob = blob
        self.starts = starts
    }

    /// `r` as JSON bytes.
    func bytes(_ r: WaterfallRequest) -> [UInt8] {
        var out = Bytes(capacity: 2048)
        defer { out.free() }
        withUnsafePointer(to: r) { p in withPieces { write(p, into: &out, $0) } }
        return out.array()
    }

    /// `requests` one after the other, and where each one's bytes end.
    func bytes<C: Collection<WaterfallRequest>>(_ requests: C) -> (bytes: [UInt8], ends: [Int]) {
        var out = Bytes(capacity: 2048 * max(1, requests.count))
        defer { out.free() }
        var ends: [Int] = []
        ends.reserveCapacity(requests.count)
        withPieces { pieces in
            // Through the buffer where there is one, each request read where it stands: a request
            // copied whole retains every text it holds.
            let done: Void? = requests.withContiguousStorageIfAvailable { rs in
                guard let base = rs.baseAddress else { return }
                for i in rs.indices {
                    write(base + i, into: &out, pieces)
                    ends.append(out.count)
                }
            }
            if done == nil {
                for r in requests {
                    withUnsafePointer(to: r) { write($0, into: &out, pieces) }
                    ends.append(out.count)
                }
            }
        }
        return (out.array(), ends)
    }

    /// The member starts, laid out (`blob`, `starts`), for the length of `body`.
    private struct Pieces {
        let blob: UnsafePointer<UInt8>
        let starts: UnsafePointer<Int>
    }

    private func withPieces<T>(_ body: (Pieces) -> T) -> T {
        blob.withUnsafeBufferPointer { blob in
            starts.withUnsafeBufferPointer { starts in body(Pieces(blob: blob.baseAddress!, starts: starts.baseAddress!)) }
        }
    }

    /// The request at `p` (read field by field where it stands, never copied whole).
    private func write(_ p: UnsafePointer<WaterfallRequest>, into out: inout Bytes, _ pieces: Pieces) {
        let blob = pieces.blob, starts = pieces.starts
        @inline(__always) func put(_ p: Piece) {
            let s = starts[p.rawValue]
            out.append(blob + s, starts[p.rawValue + 1] - s)
        }
        // A member: its start, then its value.
        @inline(__always) func string(_ p: Piece, _ v: String?) { put(p); out.string(v) }
        @inline(__always) func ms(_ p: Piece, _ v: Double?) { put(p); out.ms(v) }
        @inline(__always) func int(_ p: Piece, _ v: Int?) { put(p); out.int(v) }
        @inline(__always) func bool(_ p: Piece, _ v: Bool?) { put(p); out.bool(v) }
        @inline(__always) func timestamp(_ p: Piece, _ v: Double?) { put(p); out.timestamp(v) }
        string(.category, p.pointee.category)
        ms(.durationMs, p.pointee.durationMs)
        string(.error, p.pointee.record.error)
        bool(.hasMetrics, p.pointee.hasMetrics)
        string(.kind, p.pointee.kind)
        string(.label, p.pointee.label)
        string(.method, p.pointee.record.method)
        ms(.offsetMs, p.pointee.offsetMs)
        string(.recordId, p.pointee.record.recordId)
        string(.requestId, p.pointee.record.requestId)
        int(.seq, p.pointee.record.seq)
        string(.sessionId, p.pointee.record.sessionId)
        string(.source, p.pointee.source)
        timestamp(.start, p.pointee.start)
        string(.state, p.pointee.record.state)
        int(.statusCode, p.pointee.record.statusCode)
        ms(.totalMs, p.pointee.totalMs)
        put(.transactions)
        out.byte(0x5B)
        p.pointee.transactions.withUnsafeBufferPointer { ts in
            guard let tx = ts.baseAddress else { return }
            for k in ts.indices {
                let t = tx + k
                put(k == 0 ? .firstTransaction : .nextTransaction)
                out.byte(0x5B)
                let anomalies = t.pointee.anomalies
                for (j, a) in anomalies.enumerated() {
                    put(j == 0 ? .firstAnomaly : .nextAnomaly)
                    out.string(a)
                }
                if anomalies.isEmpty { out.byte(0x5D) } else { put(.anomaliesEnd) }
                string(.txFetchType, t.pointee.fetchType)
                int(.txIndex, t.pointee.index)
                string(.txNetworkProtocol, t.pointee.networkProtocol)
                ms(.txOffsetMs, t.pointee.offsetMs)
                let phases = WaterfallTransaction.phases(t.pointee.times, reusedConnection: t.pointee.reusedConnection)
                ms(.txPhases, phases.blocked)
                ms(.dns, phases.dns)
                ms(.download, phases.download)
                ms(.request, phases.request)
                ms(.tcp, phases.tcp)
                ms(.tls, phases.tls)
                ms(.waiting, phases.waiting)
                put(.phasesEnd)
                string(.txRemoteAddress, t.pointee.remoteAddress)
                int(.txRemotePort, t.pointee.remotePort)
                bool(.txReusedConnection, t.pointee.reusedConnection)
                int(.txStatusCode, t.pointee.statusCode)
                string(.txTLSVersion, t.pointee.tlsVersion)
                ms(.txTotalMs, t.pointee.totalMs)
                string(.txURL, t.pointee.url)
                put(.transactionEnd)
            }
        }
        if p.pointee.transactions.isEmpty { out.byte(0x5D) } else { put(.transactionsEnd) }
        string(.url, p.pointee.record.url)
        put(.requestEnd)
    }
}

/// A growing byte buffer written without `Array`'s checks on every append. Not copyable in
/// effect: its owner calls `free()` once (`RequestJSONWriter` keeps it inside one call).
struct Bytes {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    func free() { base.deallocate() }

    /// The bytes written, as an array.
    func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    @inline(__always) private mutating func reserve(_ n: Int) {
        if count &+ n > capacity { grow(count &+ n) }
    }

    @inline(never) private mutating func grow(_ need: Int) {
        let c = max(capacity * 2, need)
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        b.update(from: base, count: count)
        base.deallocate()
        base = b
        capacity = c
    }

    @inline(__always) mutating func byte(_ c: UInt8) {
        reserve(1)
        base[count] = c
        count &+= 1
    }

    @inline(__always) mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        (base + count).update(from: p, count: n)
        count &+= n
    }

    private mutating func literal(_ s: StaticString) { append(s.utf8Start, s.utf8CodeUnitCount) }

    mutating func null() { literal("null") }

    mutating func bool(_ v: Bool?) {
        guard let v else { return null() }
        if v { literal("true") } else { literal("false") }
    }

    /// As `JSONWriter.int`: the decimal digits.
    mutating func int(_ v: Int?) {
        guard let v else { return null() }
        if v < 0 { byte(0x2D) }
        digits(v.magnitude)
    }

    /// The decimal digits of `v`.
    private mutating func digits(_ v: UInt) {
        if v < 10 { return byte(48 &+ UInt8(truncatingIfNeeded: v)) }
        reserve(20)
        var n = 0
        var x = v
        while x > 0 { n &+= 1; x /= 10 }
        x = v
        var at = count &+ n
        while at > count {
            at &-= 1
            base[at] = 48 &+ UInt8(truncatingIfNeeded: x % 10)
            x /= 10
        }
        count &+= n
    }

    /// `JSONOut.format` of ±0 (the one value `ms` prints through it often: a phase of no time).
    private static let zero = Array(JSONOut.format(0.0).utf8)
    private static let minusZero = Array(JSONOut.format(-0.0).utf8)

    /// As `JSONWriter.ms`: milliseconds rounded to the microsecond.
    mutating func ms(_ v: Double?) {
        guard let v, v.isFinite else { return null() }
        let k = (v * 1000).rounded()
        guard k != 0, abs(k) < 8_000_000_000_000 else {
            if k == 0 {
                let z = k.sign == .minus ? Bytes.minusZero : Bytes.zero
                return z.withUnsafeBufferPointer { append($0.baseAddress!, $0.count) }
            }
            var s = JSONOut.format(k / 1000)
            return s.withUTF8 { append($0.baseAddress!, $0.count) }
        }
        var u = Int64(k)
        if u < 0 { byte(0x2D); u = -u }
        digits(UInt(u / 1000))
        byte(0x2E)
        var frac = Int(u % 1000)
        if frac == 0 { return byte(0x30) }
        var digits = 3
        while frac % 10 == 0 { frac /= 10; digits -= 1 }
        var div = 1
        for _ in 1..<digits { div *= 10 }
        while div > 0 { byte(UInt8(48 + (frac / div) % 10)); div /= 10 }
    }

    /// As `JSONWriter.string` of `Timestamp.format(t, micro: true)`.
    mutating func timestamp(_ t: Double?) {
        guard let t else { return null() }
        byte(0x22)
        _ = Timestamp.write(t, micro: true) { byte($0) }
        byte(0x22)
    }

    /// As `JSONWriter.string`: a string literal, `"`, `\`, controls, DEL and U+2028/2029 escaped.
    mutating func string(_ s: String?) {
        guard var s else { return null() }
        s.withUTF8 { u in
            let n = u.count
            let plain = !Bytes.mayNeedEscape(u)
            reserve(n &+ 2)
            base[count] = 0x22
            count &+= 1
            if plain {
                if n > 0 { append(u.baseAddress!, n) }
                base[count] = 0x22
                count &+= 1
                return
            }
            escaped(u)
            byte(0x22)
        }
    }

    /// Whether `u` holds a byte `JSONWriter.escape` may replace: a control, `"`, `\`, DEL, or any byte
    /// of a non-ASCII character (C1 controls, U+2028/2029, bidi and invisible marks). Eight bytes at a time: a byte below 0x20 and a byte equal to
    /// each of the others are found with the exact "has less" and "has zero" word tests, so nothing
    /// is missed (the escaping, given a text with nothing to escape, writes it as it is anyway).
    @inline(__always) static func mayNeedEscape(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = u.count
        guard n > 0, let p = u.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        var i = 0
        let raw = UnsafeRawPointer(p)
        while i &+ 8 <= n {
            let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if (w &- ones &* 0x20) & ~w & highs != 0 || hasZero(w ^ (ones &* 0x22)) || hasZero(w ^ (ones &* 0x5C))
                || hasZero(w ^ (ones &* 0x7F)) || w & highs != 0
            {
                return true
            }
            i &+= 8
        }
        while i < n {
            let c = p[i]
            if c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F || c >= 0x80 { return true }
            i &+= 1
        }
        return false
    }

    /// The escaping of `JSONWriter.string`, for a text that needs some.
    private mutating func escaped(_ u: UnsafeBufferPointer<UInt8>) {
        JSONWriter.escape(u) { append($0.baseAddress!, $0.count) }
    }
}
