import SiftArchive
import SiftCore

// Private keys written without PEM armour: the base64 of a DER private key (what a PEM block holds,
// pasted or logged on its own), the body of an OpenSSH key, and a JSON Web Key holding its private
// member. Each says what it is in its own first bytes, so no name needs to stand beside it.

/// The base64 alphabet with its padding (a key's run; line breaks inside it are stepped over apart).
private let base64Body = ByteSet("A-Za-z0-9+/=")
private let base64URL = ByteSet("A-Za-z0-9_-")

/// The first base64 characters of a DER `SEQUENCE` whose length takes 0, 1 or 2 bytes (`MC`, `MD`…
/// for short keys, `MIG`/`MIH` for one length byte, `MII` for two), and OpenSSH's `openssh-key-v1`.
let derKeyAnchors = ["MII", "MIG", "MIH", "MC4C", "MC8C", "MHcC", "MHQC", "MFMC", "MFEC", "b3BlbnNzaC1rZXktdjE"]

/// The base64 run at `p`, its line breaks included: where it ends and how many base64 characters it holds.
private func base64Run(_ t: ScanInput, _ p: Int, max: Int = 16384) -> (end: Int, chars: Int) {
    var i = p
    var chars = 0
    while i < t.count && i - p < max {
        let n = t.run(i, base64Body, max: max)
        chars += n
        i += n
        // A line break inside the key: CR, LF, or the two bytes `\n` of an escaped JSON string.
        var j = i
        while j < t.count && (t[j] == 0x0A || t[j] == 0x0D) { j += 1 }
        if j == i, j + 1 < t.count, t[j] == UInt8(ascii: "\\"), t[j + 1] == UInt8(ascii: "n") { j += 2 }
        guard j > i, j < t.count, base64Body.contains(t[j]) else { break }
        i = j
    }
    return (i, chars)
}

/// Whether `der` (at least 18 bytes) opens a private key: a `SEQUENCE` holding the version `0` then an
/// algorithm (PKCS#8) or the modulus (PKCS#1 RSA), the version `1` then the key's octets (SEC1 EC),
/// the version `3` then the content of a PKCS#12 bundle, or an encrypted PKCS#8 key (its algorithm
/// PBES2 or a PKCS#12 PBE first). The length the `SEQUENCE` declares is returned. A public key, a
/// certificate or a signing request starts with a `SEQUENCE` inside the `SEQUENCE` and no version:
/// they do not match.
func derPrivateKeyLength(_ der: [UInt8]) -> Int? {
    guard der.count >= 18, der[0] == 0x30 else { return nil }
    var i = 1
    var length = 0
    switch der[1] {
    case 0..<0x80: length = Int(der[1]); i = 2
    case 0x81: length = Int(der[2]); i = 3
    case 0x82: length = Int(der[2]) << 8 | Int(der[3]); i = 4
    default: return nil
    }
    guard length >= 30 else { return nil }
    // EncryptedPrivateKeyInfo: SEQUENCE { SEQUENCE { OID 1.2.840.113549.1.5.13 (PBES2) or 1.2.840.113549.1.12.1.x, … }, … }.
    if der[i] == 0x30, i + 13 <= der.count, der[i + 2] == 0x06 {
        let oid = Array(der[(i + 4)..<min(der.count, i + 4 + Int(der[i + 3]))])
        let pkcs = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01] as [UInt8]
        if oid.count >= 9, Array(oid.prefix(7)) == pkcs, (oid[7] == 0x05 && oid[8] == 0x0D) || oid[7] == 0x0C { return length }
        return nil
    }
    guard der[i] == 0x02, der[i + 1] == 0x01 else { return nil }
    let version = der[i + 2], next = der[i + 3]
    switch (version, next) {
    case (0, 0x30), (0, 0x02), (1, 0x04), (3, 0x30): return length
    default: return nil
    }
}

func keyMaterialDetectors() -> [Detector] {
    var d: [Detector] = []
    var der = Detector("der-private-key", "private key in base64 DER (no PEM armour)", .critical, anchors: derKeyAnchors) { t, p, len in
        guard t.boundaryBefore(p, .b64) else { return nil }
        let run = base64Run(t, p)
        // `openssh-key-v1` and its NUL: the body of an OpenSSH private key.
        if len == 19 { return run.chars >= 80 ? DetMatch(start: p, end: run.end) : nil }
        guard run.chars >= 40, p + 24 <= t.count, t.run(p, base64Body, max: 24) == 24 else { return nil }
        guard let head = Base64.decode(bytes: UnsafeBufferPointer(rebasing: t.b[p..<(p + 24)])),
            let declared = derPrivateKeyLength(head)
        else { return nil }
        // The run must hold a fair part of what the DER declares (a truncated key is still one; a
        // short run of letters that happens to decode to these bytes is not).
        guard run.chars * 3 / 4 >= min(declared, 64) else { return nil }
        return DetMatch(start: p, end: run.end)
    }
    der.neverPlaceholder = true
    der.declaredShortest = 40
    der.declaration.looksAt =
        "base64 whose DER opens a private key (PKCS#8, encrypted PKCS#8, PKCS#1 RSA, SEC1 EC, a PKCS#12 bundle: a SEQUENCE and its version or PBE algorithm) or an OpenSSH key's body"
    d.append(der)

    // A JSON Web Key with its private member: `d` (RSA, EC, OKP) or `k` (a symmetric `oct` key).
    var jwk = Detector("jwk-private-key", "JSON Web Key with its private part", .critical, anchors: ["\"kty\""]) { t, p, _ in
        // The object around `"kty"`: back to its `{`, on to its `}` (a JWK has no nested objects).
        var open = p
        while open > 0 && p - open < 4096 && t[open] != UInt8(ascii: "{") && t[open] != UInt8(ascii: "}") { open -= 1 }
        guard t[open] == UInt8(ascii: "{") else { return nil }
        var close = p
        while close < t.count && close - p < 16384 && t[close] != UInt8(ascii: "}") && t[close] != UInt8(ascii: "{") { close += 1 }
        guard close < t.count, t[close] == UInt8(ascii: "}") else { return nil }
        var i = open
        while i + 3 < close {
            // `"d"` or `"k"`, then `:` and the quoted base64url value.
            if t[i] == UInt8(ascii: "\""), t[i + 1] == UInt8(ascii: "d") || t[i + 1] == UInt8(ascii: "k"), t[i + 2] == UInt8(ascii: "\"") {
                var j = i + 3
                while j < close && (t[j] == 0x20 || t[j] == UInt8(ascii: ":")) { j += 1 }
                if j < close, t[j] == UInt8(ascii: "\"") {
                    let n = t.run(j + 1, base64URL, max: 1024)
                    if n >= 22, j + 1 + n < t.count, t[j + 1 + n] == UInt8(ascii: "\"") {
                        return DetMatch(start: j + 1, end: j + 1 + n)
                    }
                }
            }
            i += 1
        }
        return nil
    }
    jwk.neverPlaceholder = true
    jwk.declaredShortest = 22
    jwk.declaration.looksAt =
        "a JSON object with kty and a private member: d (RSA, EC, OKP) or k (a symmetric key), 22 or more base64url characters"
    d.append(jwk)

    // Bitcoin's private keys: a WIF key (`5H…`, `5J…`, `5K…` for an uncompressed key, `K…`/`L…` for a
    // compressed one) or a BIP32 extended private key (`xprv`, `yprv`, `zprv`, `tprv`), whose
    // base58check checksum holds: one chance in four billion for a run that only looks like one.
    var wallet = Detector(
        "crypto-wallet-private-key", "cryptocurrency wallet private key (Bitcoin WIF or BIP32 extended key)", .critical,
        anchors: walletAnchors
    ) { t, p, _ in
        guard t.boundaryBefore(p, base58) else { return nil }
        let n = t.run(p, base58, max: 112)
        guard t.boundaryAt(p + n, base58) else { return nil }
        let extended = t[p + 1] == UInt8(ascii: "p")
        guard extended ? n == 111 : (n == 51 || n == 52) else { return nil }
        guard let raw = base58Decode(UnsafeBufferPointer(rebasing: t.b[p..<(p + n)])), raw.count > 4 else { return nil }
        let payload = Array(raw.dropLast(4))
        var h1 = SHA256()
        h1.update(payload)
        var h2 = SHA256()
        h2.update(h1.finalize())
        guard Array(h2.finalize().prefix(4)) == Array(raw.suffix(4)) else { return nil }
        if extended {
            guard payload.count == 78, extendedPrivateVersions.contains(Array(payload.prefix(4))) else { return nil }
        } else {
            guard payload.first == 0x80, payload.count == 33 || (payload.count == 34 && payload.last == 0x01) else { return nil }
        }
        return DetMatch(start: p, end: p + n)
    }
    wallet.neverPlaceholder = true
    wallet.declaredShortest = 51
    wallet.declaration.looksAt =
        "base58check with its checksum holding: a WIF key (0x80 and 32 bytes, 51 or 52 characters) or a BIP32 xprv, yprv, zprv or tprv (78 bytes, 111 characters)"
    d.append(wallet)
    return d
}

private let base58 = ByteSet("1-9A-HJ-NP-Za-km-z")
/// The first two characters a WIF private key can start with, and the extended private keys' prefixes.
private let walletAnchors = ["5H", "5J", "5K", "Kw", "Kx", "Ky", "Kz", "L1", "L2", "L3", "L4", "L5", "xprv", "yprv", "zprv", "tprv"]
/// BIP32's version bytes of extended private keys: `xprv`, `yprv` (BIP49), `zprv` (BIP84), `tprv` (testnet).
private let extendedPrivateVersions: [[UInt8]] = [
    [0x04, 0x88, 0xAD, 0xE4], [0x04, 0x9D, 0x78, 0x78], [0x04, 0xB2, 0x43, 0x0C], [0x04, 0x35, 0x83, 0x94]
]

/// Each byte's base58 digit plus one (0: not in the alphabet).
private let base58Values: [UInt8] = {
    var value = [UInt8](repeating: 0, count: 256)
    for (i, c) in "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8.enumerated() { value[Int(c)] = UInt8(i + 1) }
    return value
}()

/// The bytes a base58 text (Bitcoin's alphabet) stands for; nil for a byte outside it.
func base58Decode(_ s: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    // Little-endian base-256 digits of the number, multiplied by 58 and added to per character.
    var out: [UInt8] = []
    for c in s {
        let v = base58Values[Int(c)]
        guard v > 0 else { return nil }
        var carry = Int(v - 1)
        for k in out.indices {
            carry += Int(out[k]) * 58
            out[k] = UInt8(carry & 0xFF)
            carry >>= 8
        }
        while carry > 0 {
            out.append(UInt8(carry & 0xFF))
            carry >>= 8
        }
    }
    // Each leading `1` is a leading zero byte.
    let zeros = s.prefix { $0 == UInt8(ascii: "1") }.count
    return [UInt8](repeating: 0, count: zeros) + out.reversed()
}
