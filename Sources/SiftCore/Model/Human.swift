import Foundation

/// Durations and sizes for people: the one style of every text, Markdown, HTML and SVG output
/// (JSON and CSV carry plain numbers). A space before the unit; milliseconds get two decimals
/// below 1 ms, one below 10 ms; seconds one decimal below a minute; then minutes and seconds, then
/// hours and minutes. Sizes in binary units, as `--max-input-bytes` takes them.
public enum Human {
    /// `0.42 ms`, `3.2 ms`, `412 ms`, `1.2 s`, `59.9 s`, `1 min 03 s`, `2 h 03 min`.
    public static func duration(ms: Double) -> String {
        guard ms.isFinite else { return "?" }
        if ms < 0 { return "-" + duration(ms: -ms) }
        if ms == 0 { return "0 ms" }
        if ms < 1 { return fixed(ms, 2) + " ms" }
        if ms < 10 { return fixed(ms, 1) + " ms" }
        if ms < 999.5 { return fixed(ms, 0) + " ms" }
        if ms < 59_950 { return fixed(ms / 1000, 1) + " s" }
        let s = ms / 1000
        // Past about 285 000 years a span is not worth the digits (and a conversion would trap).
        guard s < 9.0e12 else { return ">250000 years" }
        if s < 3599.5 {
            let whole = Int64(s.rounded())
            return "\(whole / 60) min " + twoDigits(whole % 60) + " s"
        }
        let minutes = Int64((s / 60).rounded())
        return "\(minutes / 60) h " + twoDigits(minutes % 60) + " min"
    }

    /// `duration(ms:)` of a number of seconds.
    public static func duration(seconds: Double) -> String { duration(ms: seconds * 1000) }

    /// `512 B`, `1.5 KiB`, `48 KiB`, `4.8 MiB`, `1.1 GiB`: one decimal below 10 of a unit.
    public static func bytes<T: BinaryInteger>(_ n: T) -> String {
        guard n >= 1024 else { return "\(n) B" }
        var v = Double(n)
        for unit in ["KiB", "MiB", "GiB", "TiB", "PiB"] {
            v /= 1024
            if v < 1023.5 || unit == "PiB" { return (v < 9.95 ? fixed(v, 1) : fixed(v, 0)) + " " + unit }
        }
        return "\(n) B"
    }

    /// `v` (not negative) with `decimals` digits after the point, rounded half to even like
    /// `%.Nf`; without String(format:), which is slow enough to show on a row per request.
    public static func fixed(_ v: Double, _ decimals: Int) -> String {
        var p: Int64 = 1
        for _ in 0..<decimals { p *= 10 }
        let pd = Double(p)
        let product = v * pd
        var scaled = product.rounded(.toNearestOrEven)
        let floor = product.rounded(.down)
        if product - floor == 0.5 {
            // The product may have rounded onto a tie: decide on the exact v·p, as printf does.
            let residue = (-(floor + 0.5)).addingProduct(v, pd)
            if residue > 0 { scaled = floor + 1 } else if residue < 0 { scaled = floor }
        }
        guard v >= 0, scaled < 9.0e15 else { return String(format: "%.\(decimals)f", v) }
        let n = Int64(scaled)
        var s = String(n / p)
        if decimals > 0 {
            let f = String(n % p)
            s += "." + String(repeating: "0", count: decimals - f.count) + f
        }
        return s
    }

    static func twoDigits(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
