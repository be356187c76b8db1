import Testing
@testable import SiftCore

/// The one style of durations and sizes, as a table.
@Suite struct HumanTests {
    static let durations: [(Double, String)] = [
        (0, "0 ms"), (0.423, "0.42 ms"), (3.24, "3.2 ms"), (412.4, "412 ms"), (999.4, "999 ms"), (999.6, "1.0 s"),
        (1234, "1.2 s"), (59_940, "59.9 s"), (59_960, "1 min 00 s"), (63_000, "1 min 03 s"), (310_900, "5 min 11 s"),
        (3_599_400, "59 min 59 s"), (3_599_600, "1 h 00 min"), (7_380_000, "2 h 03 min"), (-412, "-412 ms"),
        (.nan, "?"), (.infinity, "?")
    ]

    @Test func durations() {
        for (ms, text) in Self.durations {
            #expect(Human.duration(ms: ms) == text, "\(ms)")
        }
        #expect(Human.duration(seconds: 0.85) == "850 ms")
        #expect(Human.duration(seconds: 12.5) == "12.5 s")
    }

    static let sizes: [(Int64, String)] = [
        (0, "0 B"), (512, "512 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), (49_357, "48 KiB"),
        (5_033_165, "4.8 MiB"), (1_181_116_006, "1.1 GiB"), (Int64.max, "8192 PiB")
    ]

    @Test func sizes() {
        for (n, text) in Self.sizes {
            #expect(Human.bytes(n) == text, "\(n)")
        }
    }
}
