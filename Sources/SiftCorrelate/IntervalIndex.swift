import Foundation

/// The union of closed intervals, sorted and merged once, so asking whether a time lies in any of
/// them costs a binary search whatever their number (the session windows of a hundred thousand
/// sessions, the spans of thousands of log files).
struct IntervalUnion: Sendable {
    /// Disjoint, sorted by `lo`.
    private(set) var merged: [(lo: Double, hi: Double)] = []

    /// The union of `intervals`; an empty one (`lo > hi`) or one with a NaN bound holds nothing.
    init<S: Sequence>(_ intervals: S) where S.Element == (lo: Double, hi: Double) {
        let sorted = intervals.filter { $0.lo <= $0.hi }.sorted { $0.lo < $1.lo }
        for x in sorted {
            // Closed intervals that touch overlap.
            if let last = merged.last, x.lo <= last.hi {
                merged[merged.count - 1].hi = max(last.hi, x.hi)
            } else {
                merged.append(x)
            }
        }
    }

    var isEmpty: Bool { merged.isEmpty }

    /// Whether `t` lies in one of the intervals (bounds included); never for NaN.
    @inline(__always)
    func contains(_ t: Double) -> Bool {
        var lo = 0
        var hi = merged.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if merged[mid].hi < t { lo = mid + 1 } else { hi = mid }
        }
        return lo < merged.count && merged[lo].lo <= t
    }
}

/// How many distinct values lie in each of many ranges of one sequence, offline: the ranges are
/// taken in order of their end while a Fenwick tree counts, per value, only its latest position so
/// far. O((n + q) log n) for n values and q ranges, where counting each range with a set would cost
/// n × q.
enum DistinctCount {
    /// `values[i]` in 0..<`distinct`; `ranges` are half-open position ranges of `values`. Returns the
    /// number of distinct values in each range, in the order of `ranges`.
    static func count(values: [Int32], distinct: Int, ranges: [Range<Int>]) -> [Int] {
        var answers = [Int](repeating: 0, count: ranges.count)
        let order = ranges.indices.filter { !ranges[$0].isEmpty }.sorted { ranges[$0].upperBound < ranges[$1].upperBound }
        guard !order.isEmpty else { return answers }
        var tree = [Int](repeating: 0, count: values.count + 1)
        func add(_ i: Int, _ d: Int) {
            var k = i + 1
            while k < tree.count {
                tree[k] += d
                k += k & -k
            }
        }
        func prefix(_ n: Int) -> Int { // positions 0..<n
            var s = 0
            var k = n
            while k > 0 {
                s += tree[k]
                k -= k & -k
            }
            return s
        }
        var last = [Int](repeating: -1, count: distinct)
        var done = 0 // positions 0..<done are in the tree
        for q in order {
            let r = ranges[q]
            while done < r.upperBound {
                let v = Int(values[done])
                if last[v] >= 0 { add(last[v], -1) }
                last[v] = done
                add(done, +1)
                done += 1
            }
            answers[q] = prefix(r.upperBound) - prefix(r.lowerBound)
        }
        return answers
    }
}
