import Testing
@testable import SiftVerify

/// The stem pass (`DetectorEngine.stemHits`) finds exactly the offsets where a stem starts, however its
/// filters (first pair, third byte, trigram, four-byte key) are arranged.
@Suite struct StemScanTests {
    @Test func stemHitsAreEveryOffsetWhereAStemStarts() {
        let engine = DetectorEngine()
        let stems = engine.stemList
        #expect(!stems.isEmpty)
        var g = FastPathTests.Bytes(x: 21)
        // Bytes that start, continue or break stems, and pieces of stems.
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/\\\"=?& ~$".utf8)
        for round in 0..<400 {
            var t: [UInt8] = []
            let length = 1 + Int(g.next()) % (round % 7 == 0 ? 24 : 160)
            while t.count < length {
                if g.next() % 3 == 0 {
                    let s = stems[Int(g.next()) % stems.count]
                    let keep = g.next() % 4 == 0 ? Int(g.next()) % (s.count + 1) : s.count
                    t += s.prefix(keep)
                } else {
                    t.append(alphabet[Int(g.next()) % alphabet.count])
                }
            }
            var got: [Int] = []
            let saturated = t.withUnsafeBufferPointer { engine.stemHits($0, into: &got) }
            #expect(saturated == nil)
            let expected = (0..<t.count).filter { i in
                stems.contains { s in i + s.count <= t.count && t[i..<(i + s.count)].elementsEqual(s) }
            }
            #expect(got == expected, "\(String(decoding: t, as: UTF8.self))")
            #expect(t.withUnsafeBufferPointer { engine.hasStem($0) } == !expected.isEmpty)
        }
    }
}
