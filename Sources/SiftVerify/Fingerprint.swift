import Foundation
import SiftArchive
import SiftCore

/// The fingerprint of a finding's value: stable across runs, so baselines and code-scanning alerts
/// match, and never a way back to the value.
///
/// - A value with enough randomness (a provider token) gets `sha256:` and 16 hex digits of SHA-256
///   over it: nobody can enumerate 2^100 candidates to invert it.
/// - A value a brute force could enumerate (`SecretMask.isGuessable`: a one-time code, a PIN, a short
///   or one-class password: under 100 bits of search space, or fewer than 8 distinct characters) gets
///   `hmac:` and 16 hex digits of
///   HMAC-SHA-256 under the fingerprint key, a random 32-byte key kept in a file beside the baseline
///   (`FILE.key` for `--baseline FILE` or `--write-baseline FILE`). Without the key, a guess cannot be
///   checked.
/// - Without a key (no baseline given) such a value gets `loc:` and 16 hex digits of SHA-256 over the
///   rule, the session and the location: it says where, never what.
public enum Fingerprint {
    /// The rules whose values people choose (passwords): never lowered as placeholders.
    static func humanChosen(_ rule: String) -> Bool {
        rule.hasPrefix("redaction.") || rule == "secret.password-assignment" || rule == "secret.basic-auth"
            || rule == "secret.curl-user"
    }

    /// The fingerprint of `value` reported under `rule` at `place` (session and location).
    static func of(_ value: String, rule: String, place: String, key: [UInt8]?) -> String {
        guard SecretMask.isGuessable(value) else { return SecretMask.fingerprint(value) }
        if let key {
            return "hmac:" + SHA256.hex(Array(hmac(key: key, Array(value.utf8)).prefix(8)))
        }
        return "loc:" + String(SHA256.hexDigest(Array((rule + "\u{0}" + place).utf8)).prefix(16))
    }

    /// HMAC-SHA-256 (RFC 2104).
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var k = key
        if k.count > 64 { var h = SHA256(); h.update(k); k = h.finalize() }
        k += [UInt8](repeating: 0, count: 64 - k.count)
        var inner = SHA256()
        inner.update(k.map { $0 ^ 0x36 })
        inner.update(message)
        let ih = inner.finalize()
        var outer = SHA256()
        outer.update(k.map { $0 ^ 0x5C })
        outer.update(ih)
        return outer.finalize()
    }
}

/// The fingerprint key: 32 random bytes, hex, in a file beside the baseline (`FILE.key`), readable by
/// its owner only. Created by the first `--write-baseline`; read by `--baseline`.
public enum FingerprintKey {
    /// Where the key for a baseline file lives.
    public static func path(forBaseline baseline: String) -> String { baseline + ".key" }

    /// The key in `path`, if the file holds one.
    public static func load(path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var out: [UInt8] = []
        var it = text.utf8.makeIterator()
        while let a = it.next() {
            guard let b = it.next(), let hi = Shape.hexNibble(a), let lo = Shape.hexNibble(b) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out.count >= 16 ? out : nil
    }

    /// A new random key written to `path` (mode 0600).
    public static func create(path: String) throws(VerifyError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        var g = SystemRandomNumberGenerator()
        for i in 0..<key.count { key[i] = UInt8.random(in: 0...255, using: &g) }
        let text = SHA256.hex(key) + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw .unwritableFile(path)
        }
        return key
    }
}
