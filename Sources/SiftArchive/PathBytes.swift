#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Paths are bytes. A file name that is not UTF-8 is carried in a `String` without loss: every byte
/// that is not part of a valid UTF-8 sequence becomes the scalar U+10FF00 + byte (the last 256 code
/// points of plane 16, private use), and `bytes(_:)` turns them back, so pbsift opens exactly the
/// file it was given. A name that really holds one of those scalars is escaped the same way, byte by
/// byte, so the mapping stays reversible. `Escape.terminal` shows them as `\xNN`.
public enum PathBytes {
    static let base: UInt32 = 0x10FF00

    /// The path's text: UTF-8 decoded, stray bytes kept as U+10FF00 + byte.
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let b = Array(bytes)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < b.count {
            if let (scalar, len) = decode(b, i), scalar.value < base {
                out.append(scalar)
                i += len
            } else {
                let len = decode(b, i)?.1 ?? 1
                for k in i..<(i + len) { out.append(Unicode.Scalar(base + UInt32(b[k])) ?? "?") }
                i += len
            }
        }
        return String(out)
    }

    /// The bytes `string(_:)` was made from (plain UTF-8 for any other text).
    public static func bytes(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            if u.value >= base { out.append(UInt8(truncatingIfNeeded: u.value - base)) } else { out.append(contentsOf: String(u).utf8) }
        }
        return out
    }

    /// `bytes(_:)` with a terminating NUL, for the C calls that open files.
    public static func cString(_ s: String) -> [UInt8] { bytes(s) + [0] }

    /// Whether a path (as `string(_:)` carries it) names a folder.
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        let rc = cString(path).withUnsafeBufferPointer { stat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st) }
        return rc == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// The process's arguments read as bytes (`CommandLine.unsafeArgv`), not the lossy `CommandLine.arguments`.
    public static func arguments() -> [String] {
        var out: [String] = []
        for k in 0..<Int(CommandLine.argc) {
            guard let p = CommandLine.unsafeArgv[k] else { continue }
            let n = strlen(p)
            out.append(string(UnsafeRawBufferPointer(start: UnsafeRawPointer(p), count: n)))
        }
        return out
    }

    /// One valid UTF-8 sequence at `i` (shortest form, no surrogates, at most U+10FFFF).
    private static func decode(_ b: [UInt8], _ i: Int) -> (Unicode.Scalar, Int)? {
        let c = b[i]
        if c < 0x80 { return (Unicode.Scalar(c), 1) }
        let len: Int, lo: UInt32
        var v: UInt32
        switch c {
        case 0xC2...0xDF: len = 2; v = UInt32(c & 0x1F); lo = 0x80
        case 0xE0...0xEF: len = 3; v = UInt32(c & 0x0F); lo = 0x800
        case 0xF0...0xF4: len = 4; v = UInt32(c & 0x07); lo = 0x10000
        default: return nil
        }
        guard i + len <= b.count else { return nil }
        for k in 1..<len {
            let d = b[i + k]
            guard d & 0xC0 == 0x80 else { return nil }
            v = v << 6 | UInt32(d & 0x3F)
        }
        guard v >= lo, v <= 0x10FFFF, !(0xD800...0xDFFF).contains(v), let s = Unicode.Scalar(v) else { return nil }
        return (s, len)
    }
}
