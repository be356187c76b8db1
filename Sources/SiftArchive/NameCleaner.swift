/// Turns a name stored in an archive into a safe, relative, `/`-separated name.
///
/// Names from an archive are data, never paths to open. Cleaning strips leading `/` and drive
/// letters, turns `\` into `/`, resolves `.` and `..` lexically (a `..` above the top is dropped),
/// and replaces a NUL byte with U+FFFD. `unsafeReason` says why cleaning changed the meaning.
public struct CleanName: Sendable, Equatable {
    /// The cleaned name (never empty for a file: an empty result becomes `_`).
    public var name: String
    /// Whether the stored name ended with `/` (a directory in zip and tar).
    public var isDirectory: Bool
    /// Why the stored name was unsafe, lowercase; nil when cleaning only normalised harmless bits.
    public var unsafeReason: String?

    /// Cleans `raw`.
    public init(_ raw: String) {
        var reasons: [String] = []
        var s = raw
        // Byte scans: `String.contains(String)` goes through Foundation's locale-aware search, some
        // 30,000 instructions a name (an export of 100,000 files paid it twice for each).
        if s.utf8.contains(0) {
            reasons.append("contains a nul byte")
            s = s.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
        }
        if s.utf8.contains(UInt8(ascii: "\\")) {
            reasons.append("uses backslashes")
            s = s.replacingOccurrences(of: "\\", with: "/")
        }
        let u = Array(s.utf8)
        if u.count >= 2, u[1] == UInt8(ascii: ":"),
            (u[0] >= UInt8(ascii: "a") && u[0] <= UInt8(ascii: "z")) || (u[0] >= UInt8(ascii: "A") && u[0] <= UInt8(ascii: "Z"))
        {
            reasons.append("starts with a drive letter")
            s = String(decoding: u[2...], as: UTF8.self)
        }
        if s.hasPrefix("/") {
            reasons.append("is absolute")
        }
        isDirectory = s.hasSuffix("/")
        var parts: [Substring] = []
        var sawDotDot = false
        var escapes = false
        for part in s.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                sawDotDot = true
                if parts.isEmpty { escapes = true } else { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        if escapes {
            reasons.append("climbs above the top with '..'")
        } else if sawDotDot {
            reasons.append("contains '..'")
        }
        var cleaned = parts.joined(separator: "/")
        if cleaned.isEmpty {
            if !isDirectory { reasons.append("is empty once cleaned") }
            cleaned = "_"
        }
        name = cleaned
        unsafeReason = reasons.isEmpty ? nil : reasons.joined(separator: ", ")
    }
}
