import Foundation
import SiftCore

/// One confirmed detector match inside scanned bytes.
struct DetHit: Sendable {
    var detector: Int
    var start: Int
    var end: Int
    var severity: Severity
    /// Whether the placeholder rule lowered it (else a lower severity is the detector's own call).
    var placeholder = false
    /// A test-mode or sandbox key (`DetMatch.testMode`).
    var testMode = false
    /// The detector's own reason for a severity below its rule (`DetMatch.reason`).
    var reason: String? = nil
}

/// Runs the detector catalogue over byte buffers. One pass over each buffer looks up every byte pair in
/// a 64 K table of anchor buckets, and only detectors whose anchor appears run, so the cost of a clean
/// string does not grow with the number of detectors.
final class DetectorEngine: @unchecked Sendable {
    let detectors: [Detector]
    private let table: [UInt16]
    private let buckets: [[(anchor: [UInt8], detector: Int)]]
    private let hinted: [Int]
    // Stems of the anchors (each anchor's prefix before any `/`, `"` or backslash, which JSON may
    // escape) are looked for in the raw bytes of a whole record line by `stemHits`.
    /// Stems of 4+ bytes: a 64 K-bit Bloom filter over their first four bytes, then the sorted keys.
    private let bloom4: UnsafeMutablePointer<UInt64>
    private let longKeys: [UInt32]
    private let longStems: [[[UInt8]]]
    /// Stems of 2 or 3 bytes: a 64 K-bit set of their first byte pair, then the stems by pair.
    private let short2: UnsafeMutablePointer<UInt64>
    /// The first three bytes of every stem of 3+ bytes (hashed into 64 K bits: 8 KiB, stays in L1), and the pairs of the
    /// 2-byte stems: the first, cheapest tests at each offset. Trigrams, unlike pairs, are rare in prose,
    /// so the branch after them is well predicted.
    private let tri: UnsafeMutablePointer<UInt64>
    private let pairs: UnsafeMutablePointer<UInt64>
    /// The first byte pair of every stem (64 K bits): the one test at most offsets, before the trigram.
    private let firstPairs: UnsafeMutablePointer<UInt64>
    /// The same set as `firstPairs`, one 16-bit number per pair (128 KiB; text touches a few KiB of
    /// it), each pair's number (from 1; 0 for a pair that starts no stem): eight offsets are tested
    /// with a load and an `or` each, and only a block where one passes is looked at offset by offset.
    private let firstPairBytes: UnsafeMutablePointer<UInt16>
    /// Per first pair (its number in `firstPairBytes`, from 1), the bytes that may follow it in a stem
    /// (256 bits; all of them when the pair is a stem itself): the third byte is tested exactly before
    /// the full test. Four words per pair; pair 0 (none) has none.
    private let thirdBytes: UnsafeMutablePointer<UInt64>
    private let shortStems: [UInt16: [[UInt8]]]
    /// Every stem, sorted (what the stem pass looks for; tests check it against a plain search).
    let stemList: [[UInt8]]
    /// Most anchor hits examined in one buffer (a hostile string of repeated anchors stays bounded).
    let maxCandidates = 4096

    init(disabled: Set<String> = []) {
        let all = (detectorCatalogue + TeamRules.detectors).filter { !disabled.contains($0.id) && !disabled.contains($0.rule.id) }
        detectors = all
        var table = [UInt16](repeating: 0, count: 65536)
        var buckets: [[(anchor: [UInt8], detector: Int)]] = []
        for (k, d) in all.enumerated() {
            for a in d.anchors {
                let bytes = Array(a.utf8)
                precondition(bytes.count >= 2, "anchors are at least two bytes")
                let key = Int(bytes[0]) << 8 | Int(bytes[1])
                if table[key] == 0 {
                    buckets.append([])
                    table[key] = UInt16(buckets.count)
                }
                buckets[Int(table[key]) - 1].append((bytes, k))
            }
        }
        self.table = table
        self.buckets = buckets
        var stems = Set<[UInt8]>()
        for d in all {
            for a in d.anchors {
                let bytes = Array(a.utf8)
                let special: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "\""), UInt8(ascii: "\\")]
                let cut = bytes.firstIndex(where: { special.contains($0) }) ?? bytes.count
                if cut >= 2 {
                    stems.insert(Array(bytes[0..<cut]))
                } else {
                    // Too short before the special byte: the byte itself and its escaped spellings
                    // (once, twice, and once then twice: \/, \\/, \\\/) complete the stem.
                    let head = Array(bytes[0..<max(cut, 1)])
                    if head.count == 1 && bytes.count > 1 {
                        let sp = bytes[1]
                        let b: UInt8 = 0x5C
                        for esc in [[], [b], [b, b], [b, b, b]] { stems.insert(head + esc + [sp]) }
                    } else {
                        stems.insert(head + [0x5C])
                    }
                }
            }
        }
        // A \u escape can spell any anchor: a value holding one is always scanned.
        stems.insert(Array("\\u".utf8))
        bloom4 = .allocate(capacity: 1024)
        bloom4.initialize(repeating: 0, count: 1024)
        short2 = .allocate(capacity: 1024)
        short2.initialize(repeating: 0, count: 1024)
        pairs = .allocate(capacity: 1024)
        pairs.initialize(repeating: 0, count: 1024)
        tri = .allocate(capacity: 1024)
        tri.initialize(repeating: 0, count: 1024)
        firstPairs = .allocate(capacity: 1024)
        firstPairs.initialize(repeating: 0, count: 1024)
        let sortedStems = stems.sorted(by: { $0.lexicographicallyPrecedes($1) })
        let distinctPairs = Set(sortedStems.map { Int($0[0]) | Int($0[1]) << 8 }).count
        firstPairBytes = .allocate(capacity: 65536)
        firstPairBytes.initialize(repeating: 0, count: 65536)
        thirdBytes = .allocate(capacity: (distinctPairs + 1) * 4)
        thirdBytes.initialize(repeating: 0, count: (distinctPairs + 1) * 4)
        var pairNumbers = 0
        var longs: [UInt32: [[UInt8]]] = [:]
        var shorts: [UInt16: [[UInt8]]] = [:]
        stemList = sortedStems
        for st in sortedStems {
            let fk = Int(st[0]) | Int(st[1]) << 8
            firstPairs[fk >> 6] |= 1 << UInt64(fk & 63)
            if firstPairBytes[fk] == 0 {
                pairNumbers += 1
                firstPairBytes[fk] = UInt16(pairNumbers)
            }
            let third = thirdBytes + Int(firstPairBytes[fk]) * 4
            if st.count == 2 {
                for w in 0..<4 { third[w] = ~0 }
            } else {
                third[Int(st[2]) >> 6] |= 1 << UInt64(st[2] & 63)
            }
            if st.count == 2 {
                let pk = Int(st[0]) | Int(st[1]) << 8
                pairs[pk >> 6] |= 1 << UInt64(pk & 63)
            } else {
                let h3 = DetectorEngine.triIndex(UInt32(st[0]) | UInt32(st[1]) << 8 | UInt32(st[2]) << 16)
                tri[h3 >> 6] |= 1 << UInt64(h3 & 63)
            }
            if st.count >= 4 {
                let k = DetectorEngine.word(st[0], st[1], st[2], st[3])
                longs[k, default: []].append(st)
                let h = DetectorEngine.bloomIndex(k)
                bloom4[h >> 6] |= 1 << UInt64(h & 63)
            } else {
                let k = UInt16(st[0]) | UInt16(st[1]) << 8
                shorts[k, default: []].append(st)
                short2[Int(k) >> 6] |= 1 << UInt64(Int(k) & 63)
            }
        }
        precondition(stems.allSatisfy { $0.count < 256 }, "stems are shorter than 256 bytes (`stemStarts` packs their length in a byte)")
        longKeys = longs.keys.sorted()
        longStems = longKeys.map { longs[$0] ?? [] }
        shortStems = shorts
        hinted = all.indices.filter { all[$0].whole != nil }
    }

    deinit {
        bloom4.deallocate()
        short2.deallocate()
        pairs.deallocate()
        tri.deallocate()
        firstPairs.deallocate()
        firstPairBytes.deallocate()
        thirdBytes.deallocate()
    }

    /// Detector index by id (nil when disabled or unknown).
    func index(of id: String) -> Int? { detectors.firstIndex { $0.id == id } }

    /// Scans `input`, appending non-overlapping matches (specific detectors win over generic ones) to `out`.
    /// `skipURLStructural` leaves out the URL-structure detectors where the caller parses the URL itself.
    /// Returns false when the buffer held more than `maxCandidates` anchor hits and the rest was not examined.
    @discardableResult
    func scan(_ input: ScanInput, skipURLStructural: Bool = false, into out: inout [DetHit]) -> Bool {
        var unchecked: String? = nil
        return scan(input, skipURLStructural: skipURLStructural, into: &out, unchecked: &unchecked) && unchecked == nil
    }

    /// As `scan`, and `unchecked` says why a detector could not finish somewhere (a team rule's step budget).
    func scan(_ input: ScanInput, skipURLStructural: Bool = false, into out: inout [DetHit], unchecked: inout String?) -> Bool {
        let base = out.count
        var complete = true
        let b = input.b
        let n = b.count
        if n >= 2, let p = b.baseAddress {
            var candidates = 0
            table.withUnsafeBufferPointer { tab in
                var i = 0
                while i < n - 1 {
                    let t = tab[Int(p[i]) << 8 | Int(p[i + 1])]
                    if t != 0 {
                        for (anchor, k) in buckets[Int(t) - 1] where i + anchor.count <= n {
                            var same = true
                            var j = 2
                            while j < anchor.count {
                                if p[i + j] != anchor[j] { same = false; break }
                                j += 1
                            }
                            guard same else { continue }
                            let d = detectors[k]
                            if skipURLStructural && d.urlStructural { continue }
                            candidates += 1
                            if candidates > maxCandidates { complete = false; return }
                            if let m = d.match(input, i, anchor.count) {
                                if let why = m.unchecked {
                                    unchecked = unchecked ?? why
                                } else if m.end > m.start, m.start >= 0, m.end <= n {
                                    out.append(hit(k, d, m, b))
                                }
                            }
                        }
                    }
                    i += 1
                }
            }
        }
        if !input.hints.isEmpty {
            for k in hinted where !detectors[k].hintMask.isDisjoint(with: input.hints) {
                let d = detectors[k]
                if skipURLStructural && d.urlStructural { continue }
                if let m = d.whole?(input), m.end > m.start, m.start >= 0, m.end <= n {
                    out.append(hit(k, d, m, b))
                }
            }
        }
        if out.count - base > 1 { resolveOverlaps(&out, from: base) }
        return complete
    }

    /// Offsets (ascending) in `b` where an anchor stem starts: a value whose raw bytes hold none of them
    /// cannot match an anchored detector. At most `maxCandidates` offsets; past that, every offset after
    /// the last one counts as a hit (`saturatedFrom`).
    @inline(__always) static func word(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> UInt32 {
        UInt32(a) | UInt32(b) << 8 | UInt32(c) << 16 | UInt32(d) << 24
    }

    @inline(__always) static func triIndex(_ t: UInt32) -> Int {
        Int(truncatingIfNeeded: (t &* 0x9E37_79B1) >> 16) & 0xFFFF
    }

    @inline(__always) static func bloomIndex(_ w: UInt32) -> Int {
        Int(truncatingIfNeeded: (w &* 0x9E37_79B1) >> 16)
    }

    /// Appends to `out` the offsets (plus `base`) where a stem starts; with `first`, stops at the first.
    func stemHits(_ b: UnsafeBufferPointer<UInt8>, base: Int = 0, first: Bool = false, into out: inout [Int]) -> Int? {
        let limit = maxCandidates
        var saturated: Int? = nil
        forEachStem(b) { i in
            out.append(base + i)
            if first { return true }
            if out.count >= limit { saturated = base + i; return true }
            return false
        }
        return saturated
    }

    /// Appends to `out`, for each offset in `b` where a stem starts, `offset << 8 | length` of the shortest
    /// stem there: `hasStem` of any slice `s..<e` of `b` is whether some entry has `s <= offset` and
    /// `offset + length <= e` (`stemInside`). At most `maxCandidates` entries; past that, the offset of the
    /// last one is returned (slices ending after it need `hasStem`).
    func stemStarts(_ b: UnsafeBufferPointer<UInt8>, into out: inout [Int]) -> Int? {
        guard let p = b.baseAddress else { return nil }
        let limit = maxCandidates
        var saturated: Int? = nil
        forEachStem(b) { i in
            out.append(i << 8 | shortestStem(p, i, b.count))
            if out.count >= limit { saturated = i; return true }
            return false
        }
        return saturated
    }

    /// Whether an entry of `starts` (from `stemStarts`, from `cursor` on, offsets ascending) is a stem
    /// lying inside `s..<e`; `cursor` moves past the entries before `s` (slices come in ascending order).
    @inline(__always) static func stemInside(_ starts: UnsafeBufferPointer<Int>, _ cursor: inout Int, _ s: Int, _ e: Int) -> Bool {
        while cursor < starts.count && (starts[cursor] >> 8) < s { cursor += 1 }
        var k = cursor
        while k < starts.count {
            let o = starts[k] >> 8
            if o >= e { return false }
            if o + (starts[k] & 0xFF) <= e { return true }
            k += 1
        }
        return false
    }

    /// Length of the shortest stem starting at `i` of `p[0..<n]` (0 when none does).
    private func shortestStem(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
        var best = Int.max
        @inline(__always) func consider(_ st: [UInt8]) {
            guard st.count < best, i + st.count <= n else { return }
            for j in 0..<st.count where p[i + j] != st[j] { return }
            best = st.count
        }
        if i + 2 <= n, let list = shortStems[UInt16(p[i]) | UInt16(p[i + 1]) << 8] { list.forEach(consider) }
        if i + 4 <= n {
            let w = DetectorEngine.word(p[i], p[i + 1], p[i + 2], p[i + 3])
            var lo = 0, hi = longKeys.count
            while lo < hi {
                let mid = (lo + hi) >> 1
                if longKeys[mid] < w { lo = mid + 1 } else { hi = mid }
            }
            if lo < longKeys.count, longKeys[lo] == w { longStems[lo].forEach(consider) }
        }
        return best == Int.max ? 0 : min(best, 255)
    }

    /// Whether a stem starts anywhere in `b` (no allocation, no state).
    func hasStem(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        forEachStem(b) { _ in
            found = true; return true
        }
        return found
    }

    /// Calls `hit` with each offset in `b` where a stem starts, in order, until it returns true.
    @inline(__always) private func forEachStem(_ b: UnsafeBufferPointer<UInt8>, _ hit: (Int) -> Bool) {
        let n = b.count
        guard n >= 2, let p = b.baseAddress else { return }
        let bloom = bloom4, short = short2
        @inline(__always) func matches(_ st: [UInt8], _ i: Int, from: Int) -> Bool {
            guard i + st.count <= n else { return false }
            var j = from
            while j < st.count && p[i + j] == st[j] { j += 1 }
            return j == st.count
        }
        func checkLong(_ w: UInt32, _ i: Int) -> Bool {
            var lo = 0, hi = longKeys.count
            while lo < hi {
                let mid = (lo + hi) >> 1
                if longKeys[mid] < w { lo = mid + 1 } else { hi = mid }
            }
            guard lo < longKeys.count, longKeys[lo] == w else { return false }
            for st in longStems[lo] where matches(st, i, from: 4) { return true }
            return false
        }
        func checkShort(_ pair: Int, _ i: Int) -> Bool {
            guard let list = shortStems[UInt16(pair)] else { return false }
            for st in list where matches(st, i, from: 2) { return true }
            return false
        }
        var i = 0
        let raw = UnsafeRawPointer(p)
        let pairSet = pairs, triSet = tri, first = firstPairs, firstBytes = firstPairBytes, thirds = thirdBytes
        @inline(__always) func pairAt(_ k: Int) -> Int {
            Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt16.self)))
        }
        /// The full test at offset `k`, whose byte pair starts a stem (`firstPairBytes`; its 4-byte window
        /// must lie inside `b`); true when `hit` says stop.
        @inline(__always) func test(_ k: Int) -> Bool {
            let w = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt32.self))
            let pair = Int(w & 0xFFFF)
            let h3 = DetectorEngine.triIndex(w & 0xFF_FFFF)
            let any = (triSet[h3 >> 6] >> UInt64(h3 & 63)) | (pairSet[pair >> 6] >> UInt64(pair & 63))
            if any & 1 == 0 { return false }
            let h = DetectorEngine.bloomIndex(w)
            let inBloom = (bloom[h >> 6] >> UInt64(h & 63)) & 1 != 0
            let inShort = (short[pair >> 6] >> UInt64(pair & 63)) & 1 != 0
            if inBloom || inShort {
                if (inBloom && checkLong(w, k)) || (inShort && checkShort(pair, k)) {
                    return hit(k)
                }
            }
            return false
        }
        // Eight offsets at a time while their 4-byte windows fit: most blocks hold no stem's first pair.
        while i + 11 <= n {
            let any =
                firstBytes[pairAt(i)] | firstBytes[pairAt(i + 1)] | firstBytes[pairAt(i + 2)] | firstBytes[pairAt(i + 3)]
                | firstBytes[pairAt(i + 4)] | firstBytes[pairAt(i + 5)] | firstBytes[pairAt(i + 6)] | firstBytes[pairAt(i + 7)]
            if any != 0 {
                for k in i..<(i + 8) {
                    let number = Int(firstBytes[pairAt(k)])
                    if number == 0 { continue }
                    // The third byte (inside the window) can follow the pair in some stem.
                    let c = p[k + 2]
                    if (thirds[number << 2 | Int(c >> 6)] >> UInt64(c & 63)) & 1 != 0 && test(k) { return }
                }
            }
            i += 8
        }
        while i + 4 <= n {
            // Most offsets start no stem's first pair: one bit test, and on.
            let pair = pairAt(i)
            if (first[pair >> 6] >> UInt64(pair & 63)) & 1 != 0 && test(i) { return }
            i += 1
        }
        while i + 2 <= n {
            let pair = Int(p[i]) | Int(p[i + 1]) << 8
            if (short[pair >> 6] >> UInt64(pair & 63)) & 1 != 0 && checkShort(pair, i) {
                if hit(i) { return }
            }
            i += 1
        }
    }

    /// A match as a hit with its severity: a placeholder (`ghp_xxxx…`, `AKIA…EXAMPLE`, a vendor's
    /// documented example) is low, unless people choose such values (passwords, userinfo, listed
    /// names) or the match is what it says whatever its bytes (a private key's armour).
    @inline(__always) private func hit(_ k: Int, _ d: Detector, _ m: DetMatch, _ b: UnsafeBufferPointer<UInt8>) -> DetHit {
        var sev = m.severity ?? d.severity
        if m.testMode { sev = Swift.min(sev, .high) }
        var h = DetHit(detector: k, start: m.start, end: m.end, severity: sev, testMode: m.testMode, reason: m.reason)
        guard sev > .low, !Fingerprint.humanChosen(d.rule), !d.neverPlaceholder else { return h }
        let from = m.secretFrom.map { Swift.min(Swift.max($0, m.start), m.end) } ?? m.start
        if Shape.isPlaceholder(UnsafeBufferPointer(rebasing: b[from..<m.end])) {
            h.severity = .low
            h.placeholder = true
        }
        return h
    }

    /// Keeps, among overlapping matches, the one from the earliest (most specific) detector.
    private func resolveOverlaps(_ out: inout [DetHit], from base: Int) {
        var hits = Array(out[base...])
        out.removeSubrange(base...)
        hits.sort { a, b in
            if a.detector != b.detector { return a.detector < b.detector }
            return a.start < b.start
        }
        var kept: [DetHit] = []
        for h in hits where !kept.contains(where: { $0.start < h.end && h.start < $0.end }) { kept.append(h) }
        kept.sort { $0.start < $1.start }
        out.append(contentsOf: kept)
    }

    /// The first specific (non-generic) detector matching anywhere in `bytes`: a contract breach whose
    /// value also has a credential shape is critical.
    func shapeOf(_ bytes: UnsafeBufferPointer<UInt8>) -> Detector? {
        var hits: [DetHit] = []
        scan(ScanInput(b: bytes, hints: []), into: &hits)
        return hits.lazy.map { self.detectors[$0.detector] }.first { !$0.generic }
    }
}
extension DetectorEngine {
    private static let cacheLock = NSLock()
    nonisolated(unsafe) private static var cache: [Set<String>: DetectorEngine] = [:]

    /// One engine per set of disabled detectors, built once per process: an engine never changes after
    /// it is built, and building one (tables over every anchor) costs more than checking a small export.
    /// Drops the engines built so far (the team rules changed).
    static func forgetShared() {
        cacheLock.lock()
        cache = [:]
        cacheLock.unlock()
    }

    static func shared(disabled: Set<String>) -> DetectorEngine {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        if let e = cache[disabled] { return e }
        let e = DetectorEngine(disabled: disabled)
        if cache.count < 8 { cache[disabled] = e }
        return e
    }
}
