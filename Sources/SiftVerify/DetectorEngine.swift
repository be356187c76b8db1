import SiftCore

/// One confirmed detector match inside scanned bytes.
struct DetHit: Sendable {
    var detector: Int
    var start: Int
    var end: Int
    var severity: Severity
}

/// Runs the detector catalogue over byte buffers. One pass over each buffer looks up every byte pair in
/// a 64 K table of anchor buckets, and only detectors whose anchor appears run, so the cost of a clean
/// string does not grow with the number of detectors.
final class DetectorEngine: @unchecked Sendable {
    let detectors: [Detector]
    private let table: [UInt16]
    private let buckets: [[(anchor: [UInt8], detector: Int)]]
    private let hinted: [Int]
    /// Stems of the anchors (each anchor's prefix before any `/`, `"` or backslash, which JSON may
    /// escape), looked for in the raw bytes of a whole record line by `stemHits`.
    private let stemTable: UnsafeMutablePointer<UInt16>
    private let stemBuckets: UnsafeMutablePointer<StemBucket>
    private let stemBytes: UnsafeMutablePointer<UInt8>
    private let stemRefs: UnsafeMutablePointer<(start: Int32, count: Int32)>

    /// The stems sharing a first byte pair, with the set of their third bytes.
    struct StemBucket {
        var third = ByteSet("")
        var anyThird = false
        var first: Int32 = 0
        var count: Int32 = 0
    }
    /// Most anchor hits examined in one buffer (a hostile string of repeated anchors stays bounded).
    let maxCandidates = 4096

    init(disabled: Set<String> = []) {
        let all = detectorCatalogue.filter { !disabled.contains($0.id) && !disabled.contains($0.rule) }
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
                    let head = Array(bytes[0..<max(cut, 1)])
                    if head.count == 1 {
                        stems.insert(head + [UInt8(ascii: "\\")])
                        stems.insert(head + [bytes.count > 1 ? bytes[1] : UInt8(ascii: "\\")])
                    } else {
                        stems.insert(head)
                    }
                }
            }
        }
        // A \u escape can spell any anchor: a value holding one is always scanned.
        stems.insert(Array("\\u".utf8))
        let sortedStems = stems.sorted(by: { $0.lexicographicallyPrecedes($1) })
        var groups: [Int: [[UInt8]]] = [:]
        for st in sortedStems { groups[Int(st[0]) << 8 | Int(st[1]), default: []].append(st) }
        stemTable = .allocate(capacity: 65536)
        stemTable.initialize(repeating: 0, count: 65536)
        stemBuckets = .allocate(capacity: max(1, groups.count))
        stemRefs = .allocate(capacity: max(1, sortedStems.count))
        let total = sortedStems.reduce(0) { $0 + $1.count }
        stemBytes = .allocate(capacity: max(1, total))
        var bucketCount = 0, refCount = 0, byteCount = 0
        for key in groups.keys.sorted() {
            var bucket = StemBucket()
            bucket.first = Int32(refCount)
            for st in groups[key] ?? [] {
                if st.count == 2 { bucket.anyThird = true } else { bucket.third.insert(st[2]) }
                for (k, c) in st.enumerated() { stemBytes[byteCount + k] = c }
                stemRefs[refCount] = (Int32(byteCount), Int32(st.count))
                byteCount += st.count
                refCount += 1
            }
            bucket.count = Int32(refCount) - bucket.first
            stemBuckets.advanced(by: bucketCount).initialize(to: bucket)
            bucketCount += 1
            stemTable[key] = UInt16(bucketCount)
        }
        hinted = all.indices.filter { all[$0].whole != nil }
    }

    deinit {
        stemTable.deallocate()
        stemBuckets.deallocate()
        stemBytes.deallocate()
        stemRefs.deallocate()
    }

    /// Detector index by id (nil when disabled or unknown).
    func index(of id: String) -> Int? { detectors.firstIndex { $0.id == id } }

    /// Scans `input`, appending non-overlapping matches (specific detectors win over generic ones) to `out`.
    /// `skipURLStructural` leaves out the URL-structure detectors where the caller parses the URL itself.
    func scan(_ input: ScanInput, skipURLStructural: Bool = false, into out: inout [DetHit]) {
        let base = out.count
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
                            if candidates > maxCandidates { return }
                            if let m = d.match(input, i, anchor.count), m.end > m.start, m.start >= 0, m.end <= n {
                                out.append(DetHit(detector: k, start: m.start, end: m.end, severity: m.severity ?? d.severity))
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
                    out.append(DetHit(detector: k, start: m.start, end: m.end, severity: m.severity ?? d.severity))
                }
            }
        }
        if out.count - base > 1 { resolveOverlaps(&out, from: base) }
    }

    /// Offsets (ascending) in `b` where an anchor stem starts: a value whose raw bytes hold none of them
    /// cannot match an anchored detector. At most `maxCandidates` offsets; past that, every offset after
    /// the last one counts as a hit (`saturatedFrom`).
    func stemHits(_ b: UnsafeBufferPointer<UInt8>, into out: inout [Int]) -> Int? {
        out.removeAll(keepingCapacity: true)
        let n = b.count
        guard n >= 2, let p = b.baseAddress else { return nil }
        let tab = stemTable, buckets = stemBuckets, refs = stemRefs, bytes = stemBytes
        let limit = maxCandidates
        var i = 0
        var key = Int(p[0])
        while i < n - 1 {
            key = (key << 8 | Int(p[i + 1])) & 0xFFFF
            let t = Int(tab[key])
            if t != 0 {
                let bk = buckets[t - 1]
                if bk.anyThird || (i + 2 < n && bk.third.contains(p[i + 2])) {
                    var r = Int(bk.first)
                    let end = r + Int(bk.count)
                    while r < end {
                        let (start, len) = refs[r]
                        let l = Int(len)
                        if i + l <= n {
                            var j = 2
                            let sp = bytes + Int(start)
                            while j < l && p[i + j] == sp[j] { j += 1 }
                            if j == l {
                                out.append(i)
                                if out.count >= limit { return i }
                                break
                            }
                        }
                        r += 1
                    }
                }
            }
            i += 1
        }
        return nil
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
