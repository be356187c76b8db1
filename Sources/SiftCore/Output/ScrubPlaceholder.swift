/// The text `pbsift scrub` puts where a credential was: `***scrubbed:<rule>:sha256:<16 hex>***`. It
/// names the rule that found the value and the value's fingerprint, never the value, and `verify`
/// reads it as masked (like `***`).
public enum ScrubPlaceholder {
    public static func make(rule: String, fingerprint: String) -> String {
        "***scrubbed:" + rule + ":" + fingerprint + "***"
    }

    /// Whether `b` is exactly one placeholder.
    public static func matches(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let head = Array("***scrubbed:".utf8)
        guard b.count > head.count + 3, b.count <= 160 else { return false }
        for (i, c) in head.enumerated() where b[i] != c { return false }
        guard b[b.count - 1] == 0x2A, b[b.count - 2] == 0x2A, b[b.count - 3] == 0x2A else { return false }
        for i in head.count..<(b.count - 3) {
            let c = b[i]
            let ok = (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x3A || c == 0x2D || c == 0x5F
            if !ok { return false }
        }
        return true
    }
}
