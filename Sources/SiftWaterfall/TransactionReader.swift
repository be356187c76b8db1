import Foundation
import SiftCore

/// Reads one `metrics.transactions[i]` object into a `WaterfallTransaction`.
///
/// The fast path walks the object's raw bytes once (the tape parser has already validated them),
/// instead of looking each of ~22 members up by name; it gives up (and the member-by-member path
/// runs) on anything unusual: an escaped member name, or a structure it does not expect. An
/// escaped value is read through `JSONValue`. Like `JSONValue`'s subscript, the first of repeated
/// names wins. Both paths give the same result (a test holds them equal).
public enum TransactionReader {
    /// Member names the waterfall reads, after the eleven timestamps (ids 0…10).
    static let otherNames = ["reusedConnection", "fetchType", "networkProtocol", "remoteAddress", "remotePort",
                             "tlsVersion", "statusCode", "url", "requestBodyBytes", "responseBodyBytes"]
    static let names: [[UInt8]] = (TransactionTimes.fieldNames + otherNames).map { Array($0.utf8) }
    /// The ids of `names` by their length (at most six share one): a member name is compared with
    /// these only.
    static let idsByLength: [[Int]] = {
        var t = [[Int]](repeating: [], count: 32)
        for (k, n) in names.enumerated() where n.count < 32 { t[n.count].append(k) }
        return t
    }()

    /// The transaction, by the fast path when it can.
    public static func read(_ tx: JSONValue, index: Int, maxLen: Int, pool: StringPool? = nil) -> WaterfallTransaction {
        fast(tx, index: index, maxLen: maxLen, pool: pool) ?? slow(tx, index: index, maxLen: maxLen, pool: pool)
    }

    /// Member by member through `JSONValue`.
    public static func slow(_ tx: JSONValue, index: Int, maxLen: Int, pool: StringPool? = nil) -> WaterfallTransaction {
        var times = TransactionTimes()
        var unreadable: [String] = []
        for (k, name) in TransactionTimes.fieldNames.enumerated() {
            switch WaterfallJSON.stamp(tx[name]) {
            case .absent: break
            case .invalid: unreadable.append("\(name) is not a timestamp")
            case .value(let v): times.set(k, v)
            }
        }
        var t = WaterfallTransaction(index: index, times: times, reusedConnection: tx["reusedConnection"]?.bool,
                                     fetchType: WaterfallJSON.string(tx["fetchType"], max: 64, pool: pool))
        t.anomalies = unreadable + t.anomalies
        t.networkProtocol = WaterfallJSON.string(tx["networkProtocol"], max: 64, pool: pool)
        t.remoteAddress = WaterfallJSON.string(tx["remoteAddress"], max: 256, pool: pool)
        t.remotePort = tx["remotePort"]?.int
        t.tlsVersion = WaterfallJSON.string(tx["tlsVersion"], max: 64, pool: pool)
        t.statusCode = tx["statusCode"]?.int
        t.url = WaterfallJSON.string(tx["url"], max: maxLen, pool: pool)
        t.requestBodyBytes = tx["requestBodyBytes"]?.int
        t.responseBodyBytes = tx["responseBodyBytes"]?.int
        return t
    }

    /// One pass over the raw bytes; nil when the slow path must run.
    public static func fast(_ tx: JSONValue, index: Int, maxLen: Int, pool: StringPool? = nil) -> WaterfallTransaction? {
        let raw = tx.rawBytes
        let names = TransactionReader.names, idsByLength = TransactionReader.idsByLength
        return raw.withUnsafeBufferPointer { b -> WaterfallTransaction? in
            let n = b.count
            guard n >= 2, b[0] == 0x7B else { return nil }
            var times = TransactionTimes()
            var unreadable: [(Int, String)] = []
            var seen: UInt32 = 0
            var reused: Bool?
            var fetchType: String?, proto: String?, address: String?, tls: String?, url: String?
            var port: Int?, status: Int?, reqBytes: Int?, respBytes: Int?

            @inline(__always) func ws(_ i: Int) -> Int {
                var i = i
                while i < n, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
                return i
            }
            /// Index of the closing quote of a string whose content starts at `i`; sets `escaped`.
            @inline(__always) func stringEnd(_ i: Int, _ escaped: inout Bool) -> Int? {
                var i = i
                while i < n {
                    let c = b[i]
                    if c == 0x22 { return i }
                    if c == 0x5C { escaped = true; i += 2; continue }
                    i += 1
                }
                return nil
            }
            func text(_ s: Int, _ e: Int, max: Int) -> String {
                let bytes = UnsafeBufferPointer(rebasing: b[s..<e])
                if let pool, bytes.count <= max {
                    let t = pool.string(bytes)
                    if t.utf8.count <= max { return t }
                }
                let t = String(decoding: bytes, as: UTF8.self)
                let cut = t.utf8.count <= max ? t : String(t.prefix(max)) + "…"
                return pool?.intern(cut) ?? cut
            }
            func integer(_ s: Int, _ e: Int) -> Int? {
                var i = s
                var neg = false
                if i < e, b[i] == 0x2D { neg = true; i += 1 }
                guard i < e, e - i <= 15 else { return nil }
                var v = 0
                while i < e {
                    let c = b[i]
                    guard c >= 48 && c <= 57 else { return nil }
                    v = v * 10 + Int(c - 48)
                    i += 1
                }
                return neg ? -v : v
            }

            var i = ws(1)
            if i < n, b[i] == 0x7D { i = n }   // {}
            while i < n {
                guard b[i] == 0x22 else { return nil }
                var keyEscaped = false
                guard let ke = stringEnd(i + 1, &keyEscaped), !keyEscaped else { return nil }
                let ks = i + 1
                i = ws(ke + 1)
                guard i < n, b[i] == 0x3A else { return nil }
                i = ws(i + 1)
                guard i < n else { return nil }
                // The value: [vs, ve); strings as their content with `isString`.
                var isString = false
                var valueEscaped = false
                let vs: Int
                let ve: Int
                switch b[i] {
                case 0x22:
                    guard let e = stringEnd(i + 1, &valueEscaped) else { return nil }
                    isString = true
                    vs = i + 1
                    ve = e
                    i = e + 1
                case 0x7B, 0x5B:
                    var depth = 0
                    var j = i
                    while j < n {
                        let c = b[j]
                        if c == 0x22 {
                            var esc = false
                            guard let e = stringEnd(j + 1, &esc) else { return nil }
                            j = e + 1
                            continue
                        }
                        if c == 0x7B || c == 0x5B { depth += 1 }
                        if c == 0x7D || c == 0x5D {
                            depth -= 1
                            if depth == 0 { j += 1; break }
                        }
                        j += 1
                    }
                    guard depth == 0 else { return nil }
                    vs = i
                    ve = j
                    i = j
                default:
                    var j = i
                    while j < n, b[j] != 0x2C, b[j] != 0x7D, b[j] != 0x20, b[j] != 0x0A, b[j] != 0x0D, b[j] != 0x09 { j += 1 }
                    vs = i
                    ve = j
                    i = j
                }
                // Which member is it?
                let klen = ke - ks
                var id = -1
                if klen > 0 && klen < idsByLength.count {
                    for k in idsByLength[klen] where names[k][0] == b[ks] {
                        if names[k].withUnsafeBufferPointer({ memcmp($0.baseAddress!, b.baseAddress! + ks, klen) == 0 }) {
                            id = k
                            break
                        }
                    }
                }
                if id >= 0 && seen & (1 << UInt32(id)) == 0 {
                    seen |= 1 << UInt32(id)
                    let isNull = !isString && ve - vs == 4 && b[vs] == 0x6E
                    if valueEscaped {
                        // Rare: decode through JSONValue (first occurrence, as the subscript does).
                        let name = String(decoding: names[id], as: UTF8.self)
                        let v = tx[name]
                        switch id {
                        case 0...10:
                            switch WaterfallJSON.stamp(v) {
                            case .absent: break
                            case .invalid: unreadable.append((id, "\(name) is not a timestamp"))
                            case .value(let us): times.set(id, us)
                            }
                        case 12: fetchType = WaterfallJSON.string(v, max: 64, pool: pool)
                        case 13: proto = WaterfallJSON.string(v, max: 64, pool: pool)
                        case 14: address = WaterfallJSON.string(v, max: 256, pool: pool)
                        case 16: tls = WaterfallJSON.string(v, max: 64, pool: pool)
                        case 18: url = WaterfallJSON.string(v, max: maxLen, pool: pool)
                        default: break
                        }
                    } else {
                        switch id {
                        case 0...10:
                            if isNull { break }
                            var parsed: Double?
                            if isString { parsed = Timestamp.parse(bytes: UnsafeBufferPointer(rebasing: b[vs..<ve])) }
                            if let t = parsed, let us = WaterfallJSON.micros(t) {
                                times.set(id, us)
                            } else {
                                unreadable.append((id, "\(TransactionTimes.fieldNames[id]) is not a timestamp"))
                            }
                        case 11:
                            if !isString && ve - vs == 4 && b[vs] == 0x74 { reused = true }
                            if !isString && ve - vs == 5 && b[vs] == 0x66 { reused = false }
                        case 12: if isString { fetchType = text(vs, ve, max: 64) }
                        case 13: if isString { proto = text(vs, ve, max: 64) }
                        case 14: if isString { address = text(vs, ve, max: 256) }
                        case 15: if !isString && !isNull { port = integer(vs, ve) ?? tx["remotePort"]?.int }
                        case 16: if isString { tls = text(vs, ve, max: 64) }
                        case 17: if !isString && !isNull { status = integer(vs, ve) ?? tx["statusCode"]?.int }
                        case 18: if isString { url = text(vs, ve, max: maxLen) }
                        case 19: if !isString && !isNull { reqBytes = integer(vs, ve) ?? tx["requestBodyBytes"]?.int }
                        case 20: if !isString && !isNull { respBytes = integer(vs, ve) ?? tx["responseBodyBytes"]?.int }
                        default: break
                        }
                    }
                }
                i = ws(i)
                guard i < n else { return nil }
                if b[i] == 0x2C { i = ws(i + 1); continue }
                if b[i] == 0x7D { break }
                return nil
            }
            var t = WaterfallTransaction(index: index, times: times, reusedConnection: reused, fetchType: fetchType)
            t.anomalies = unreadable.sorted { $0.0 < $1.0 }.map(\.1) + t.anomalies
            t.networkProtocol = proto
            t.remoteAddress = address
            t.remotePort = port
            t.tlsVersion = tls
            t.statusCode = status
            t.url = url
            t.requestBodyBytes = reqBytes
            t.responseBodyBytes = respBytes
            return t
        }
    }
}
