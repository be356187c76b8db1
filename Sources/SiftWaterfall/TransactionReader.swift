import Foundation
import SiftCore

/// Reads one `metrics.transactions[i]` object into a `WaterfallTransaction`.
///
/// The fast path walks the object's members once on the tape, comparing their names as bytes,
/// instead of looking each of ~22 members up by name; it gives up (and the member-by-member path
/// runs) on an escaped member name. An escaped value is read through `JSONValue`. Like `JSONValue`'s subscript, the first of repeated
/// names wins. Both paths give the same result (a test holds them equal).
public enum TransactionReader {
    /// Member names the waterfall reads, after the eleven timestamps (ids 0…10): ids 11…20.
    static let otherNames = [
        "reusedConnection", "fetchType", "networkProtocol", "remoteAddress", "remotePort",
        "tlsVersion", "statusCode", "url", "requestBodyBytes", "responseBodyBytes"
    ]

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
        var t = WaterfallTransaction(
            index: index, times: times, reusedConnection: tx["reusedConnection"]?.bool,
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

    /// Reads the transaction by the tape when it can (`fast`), else member by member (`slow`).
    static func read(_ t: JSONTapeView, _ i: Int, index: Int, maxLen: Int, pool: StringPool?) -> WaterfallTransaction {
        fast(t, i, index: index, maxLen: maxLen, pool: pool) ?? slow(t.value(i), index: index, maxLen: maxLen, pool: pool)
    }

    /// One pass over the object's members on the tape; nil when the slow path must run.
    public static func fast(_ tx: JSONValue, index: Int, maxLen: Int, pool: StringPool? = nil) -> WaterfallTransaction? {
        let i = tx.tapeIndex
        return tx.doc.withTape { fast($0, i, index: index, maxLen: maxLen, pool: pool) }
    }

    /// The id of the member name `k` (unescaped): 0…10 the timestamps of `TransactionTimes.fieldNames`,
    /// 11…20 `otherNames`; -1 for another name. By length, then the few names of that length.
    @inline(__always) static func id(_ t: JSONTapeView, _ k: Int) -> Int {
        let key = t.raw(k)
        let n = key.count
        @inline(__always) func eq(_ s: StaticString) -> Bool { memcmp(s.utf8Start, key.baseAddress!, n) == 0 }
        switch n {
        case 3: return eq("url") ? 18 : -1
        case 9: return eq("fetchType") ? 12 : -1
        case 10:
            if eq("fetchStart") { return 0 }
            if eq("connectEnd") { return 6 }
            if eq("requestEnd") { return 8 }
            if eq("remotePort") { return 15 }
            if eq("tlsVersion") { return 16 }
            if eq("statusCode") { return 17 }
            return -1
        case 11: return eq("responseEnd") ? 10 : -1
        case 12: return eq("connectStart") ? 3 : eq("requestStart") ? 7 : -1
        case 13: return eq("responseStart") ? 9 : eq("remoteAddress") ? 14 : -1
        case 15: return eq("domainLookupEnd") ? 2 : eq("networkProtocol") ? 13 : -1
        case 16: return eq("reusedConnection") ? 11 : eq("requestBodyBytes") ? 19 : -1
        case 17: return eq("domainLookupStart") ? 1 : eq("responseBodyBytes") ? 20 : -1
        case 19: return eq("secureConnectionEnd") ? 5 : -1
        case 21: return eq("secureConnectionStart") ? 4 : -1
        default: return -1
        }
    }

    /// The member by member pass of `fast` on the tape: nil when a member name is escaped (the
    /// slow path reads it decoded).
    static func fast(_ t: JSONTapeView, _ i: Int, index: Int, maxLen: Int, pool: StringPool?) -> WaterfallTransaction? {
        guard t.kind(i) == .object else { return nil }
        var times = TransactionTimes()
        var unreadable: [(Int, String)] = []
        var seen: UInt32 = 0
        var reused: Bool?
        var fetchType: String?, proto: String?, address: String?, tls: String?, url: String?
        var port: Int?, status: Int?, reqBytes: Int?, respBytes: Int?
        var escapedName = false
        // The timestamps of a transaction mostly share their minute.
        var minute = Timestamp.Memo()
        t.forEachMember(i) { k, v in
            guard !escapedName else { return }
            if t.isEscaped(k) { escapedName = true; return }
            let id = TransactionReader.id(t, k)
            guard id >= 0 && seen & (1 << UInt32(id)) == 0 else { return }
            seen |= 1 << UInt32(id)
            let kind = t.kind(v)
            switch id {
            case 0...10:
                switch kind {
                case .null: break
                case .string:
                    if t.isEscaped(v) {
                        switch WaterfallJSON.stamp(t, v) {
                        case .absent: break
                        case .invalid: unreadable.append((id, "\(TransactionTimes.fieldNames[id]) is not a timestamp"))
                        case .value(let us): times.set(id, us)
                        }
                    } else if let p = Timestamp.parse(bytes: t.raw(v), memo: &minute), let us = WaterfallJSON.micros(p) {
                        times.set(id, us)
                    } else {
                        unreadable.append((id, "\(TransactionTimes.fieldNames[id]) is not a timestamp"))
                    }
                default: unreadable.append((id, "\(TransactionTimes.fieldNames[id]) is not a timestamp"))
                }
            case 11: reused = t.bool(v)
            case 12: fetchType = StringPool.text(t, v, max: 64, pool: pool)
            case 13: proto = StringPool.text(t, v, max: 64, pool: pool)
            case 14: address = StringPool.text(t, v, max: 256, pool: pool)
            case 15: port = t.int(v)
            case 16: tls = StringPool.text(t, v, max: 64, pool: pool)
            case 17: status = t.int(v)
            case 18: url = StringPool.text(t, v, max: maxLen, pool: pool)
            case 19: reqBytes = t.int(v)
            case 20: respBytes = t.int(v)
            default: break
            }
        }
        guard !escapedName else { return nil }
        var tr = WaterfallTransaction(index: index, times: times, reusedConnection: reused, fetchType: fetchType)
        if !unreadable.isEmpty { tr.anomalies = unreadable.sorted { $0.0 < $1.0 }.map(\.1) + tr.anomalies }
        tr.networkProtocol = proto
        tr.remoteAddress = address
        tr.remotePort = port
        tr.tlsVersion = tls
        tr.statusCode = status
        tr.url = url
        tr.requestBodyBytes = reqBytes
        tr.responseBodyBytes = respBytes
        return tr
    }
}
