import SiftArchive
import SiftCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContentScanner {
    // MARK: - Line prefilter

    /// Prepares the prefilter for one record line: one pass over its raw bytes.
    /// `skip`: ascending, disjoint ranges (inline JSON body texts) the JSON scanner checks value by value
    /// itself, so the line pass leaves out their keys and structure.
    func beginLine(_ bytes: [UInt8], skip: [Range<Int>] = []) {
        endRecord()
        lineHits.removeAll(keepingCapacity: true)
        lineSaturatedFrom = nil
        bytes.withUnsafeBufferPointer { b in
            var from = 0
            // Each stretch before a skipped range, then the one after the last (no array made for it).
            for k in 0...skip.count {
                let r = k < skip.count ? skip[k] : b.count..<b.count
                guard r.lowerBound >= from && r.upperBound <= b.count else { continue }
                if r.lowerBound > from, lineSaturatedFrom == nil {
                    lineSaturatedFrom = engine.stemHits(UnsafeBufferPointer(rebasing: b[from..<r.lowerBound]), base: from, into: &lineHits)
                }
                from = r.upperBound
            }
        }
    }

    /// Prepares the prefilter for one record line without a pass over it: a value, name or part of the
    /// line is looked at when a check asks about it (most of a line is names, numbers and structure,
    /// and names are asked about through `nameFacts`). `line` must stay valid until `endRecord()`;
    /// `skip` as for `beginLine`. The checks find what they find after `beginLine(line, skip)`.
    func beginRecord(_ line: UnsafeBufferPointer<UInt8>, of doc: JSONDocument, skip: [Range<Int>]) {
        lineHits.removeAll(keepingCapacity: true)
        lineSaturatedFrom = nil
        recordLine = line
        recordDoc = doc
        recordSkip = skip
        recordHasStem = nil
    }

    /// Ends what `beginRecord` began (the line is no longer read).
    func endRecord() {
        recordLine = nil
        recordDoc = nil
        recordHasStem = nil
    }

    /// Whether a stem lies in the line outside the skipped ranges: `beginLine` found some stem offset.
    var lineHasStem: Bool {
        guard let line = recordLine else { return !(lineHits.isEmpty && lineSaturatedFrom == nil) }
        if let known = recordHasStem { return known }
        var found = false
        var from = 0
        // The stretches `beginLine` scans: before each skipped range it takes, and after the last.
        for k in 0...recordSkip.count where !found {
            let r = k < recordSkip.count ? recordSkip[k] : line.count..<line.count
            guard r.lowerBound >= from && r.upperBound <= line.count else { continue }
            if r.lowerBound > from { found = engine.hasStem(UnsafeBufferPointer(rebasing: line[from..<r.lowerBound])) }
            from = r.upperBound
        }
        recordHasStem = found
        return found
    }

    /// `lineHasStem`, found at once when `b` (a part of the record line outside the skipped ranges)
    /// holds a stem itself: a URL's `://` or a listed name's own stem tells without a look at the rest.
    func lineHasStem(holding b: UnsafeBufferPointer<UInt8>) -> Bool {
        if recordHasStem == nil, let line = recordLine, let lb = line.baseAddress, let p = b.baseAddress,
            p >= lb, p + b.count <= lb + line.count
        {
            let s = p - lb, e = s + b.count
            if !recordSkip.contains(where: { $0.overlaps(s..<e) }) && engine.hasStem(b) { recordHasStem = true }
        }
        return lineHasStem
    }

    /// Whether a stem starts in `b` (a value the line pass left out).
    @inline(__always) func hasStem(_ b: UnsafeBufferPointer<UInt8>) -> Bool { engine.hasStem(b) }

    /// Whether an anchor stem starts inside `r` (offsets in the current line). Asked of a record line
    /// (`beginRecord`), whether one lies inside `r`: a value's raw range holds its quotes, and no stem
    /// holds a quote, so a stem starting in one lies in it; a part of a URL the detectors scan alone
    /// holds every anchor they can find there whole, and so its stem.
    @inline(__always) func rawHasHit(_ r: Range<Int>) -> Bool {
        if let line = recordLine {
            guard r.lowerBound >= 0 && r.upperBound <= line.count else { return true }
            return engine.hasStem(UnsafeBufferPointer(rebasing: line[r]))
        }
        if let s = lineSaturatedFrom, r.upperBound > s { return true }
        if lineHits.isEmpty { return false }
        var lo = 0, hi = lineHits.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if lineHits[mid] < r.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        return lo < lineHits.count && lineHits[lo] < r.upperBound
    }
}
