import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// The word-at-a-time searches, the four-at-a-time base64 decoder and the key cache's word loads
/// give the same answers as the byte-by-byte versions, wherever a match falls against an 8-byte word
/// and a buffer's end.
@Suite struct FastPathTests {
    /// A deterministic byte generator (all 256 values, so high bytes and zeros stand next to matches).
    struct Bytes {
        var x: UInt64
        mutating func next() -> UInt8 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: x >> 33)
        }
    }

    @Test func wordSearchFindsTheFirstMatchAtEveryOffset() {
        var g = Bytes(x: 11)
        for n in 0...40 {
            for at in -1..<n {
                for filler in [UInt8(0x00), 0x01, 0x5B, 0x5D, 0x21, 0x23, 0x7F, 0x80, 0xDC, 0xFF, 0xA2] {
                    var b = [UInt8](repeating: filler, count: n)
                    if at >= 0 { b[at] = 0x5C }
                    if at >= 0 && at + 1 < n { b[at + 1] = 0x22 }
                    b.withUnsafeBufferPointer { buf in
                        let p = buf.baseAddress ?? UnsafePointer(bitPattern: 8)!
                        for from in 0...n {
                            let naive1 = (from..<n).first { buf[$0] == 0x5C } ?? n
                            #expect(ByteScan.first(0x5C, in: p, from: from, n) == naive1, "n \(n) at \(at) from \(from) filler \(filler)")
                            let naive2 = (from..<n).first { buf[$0] == 0x5C || buf[$0] == 0x22 } ?? n
                            #expect(ByteScan.first(0x22, or: 0x5C, in: p, from: from, n) == naive2, "n \(n) at \(at) from \(from)")
                        }
                    }
                }
            }
        }
        // Random bytes: every value next to every other.
        for _ in 0..<200 {
            let n = Int(g.next() % 70)
            let b = (0..<n).map { _ in g.next() }
            b.withUnsafeBufferPointer { buf in
                guard let p = buf.baseAddress else { return }
                for from in 0...n {
                    for c in [UInt8(0x5C), 0x22, 0x00, 0xFF, 0x80] {
                        #expect(ByteScan.first(c, in: p, from: from, n) == ((from..<n).first { buf[$0] == c } ?? n))
                    }
                }
            }
        }
    }

    @Test func base64BufferDecodesAsBase64DecodeDoes() {
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_".utf8)
        let odd: [UInt8] = [0x3D, 0x0A, 0x0D, 0x20, 0x09, 0x2E, 0x00, 0xFF, 0x22]
        var g = Bytes(x: 5)
        let buffer = Base64Buffer()
        var cases: [[UInt8]] = [
            [], Array("=".utf8), Array("QQ==".utf8), Array("QQ".utf8), Array("Q".utf8), Array("QUJD".utf8),
            Array("QUJD\nREVG".utf8), Array("QUJDREVG=".utf8), Array("QUJ=D".utf8), Array("QU JD".utf8)
        ]
        for _ in 0..<3000 {
            let n = Int(g.next() % 41)
            var b = (0..<n).map { _ in symbols[Int(g.next()) % symbols.count] }
            // Now and then an odd byte (white space, padding, a byte outside both alphabets) anywhere.
            let odds = Int(g.next() % 4)
            for _ in 0..<odds where n > 0 { b[Int(g.next()) % n] = odd[Int(g.next()) % odd.count] }
            // Padding at the end, sometimes.
            if g.next() % 3 == 0 { b += Array(repeating: 0x3D, count: Int(g.next() % 3)) }
            cases.append(b)
        }
        for b in cases {
            let expected = b.withUnsafeBufferPointer { Base64.decode(bytes: $0) }
            let got: [UInt8]? = b.withUnsafeBufferPointer { buf in buffer.withDecoded(buf) { $0.map { Array($0) } } }
            #expect(got == expected, "\(String(decoding: b, as: UTF8.self))")
        }
        // A large body (given back after use) decodes the same too.
        let big = (0..<(3 << 20)).map { _ in symbols[Int(g.next()) % 64] }
        let expected = big.withUnsafeBufferPointer { Base64.decode(bytes: $0) }
        let got: [UInt8]? = big.withUnsafeBufferPointer { buf in buffer.withDecoded(buf) { $0.map { Array($0) } } }
        #expect(got == expected)
    }

    @Test func keyFactsAreTheSameWhateverFollowsTheKey() {
        let scanner = ContentScanner(config: VerifyConfig())
        let reference = ContentScanner(config: VerifyConfig())
        let names = [
            "password", "passwordx", "Pass_Word", "token", "tokens", "id", "", "a", "accessToken", "access_token_",
            "x" + String(repeating: "y", count: 22) + "password", String(repeating: "z", count: 31), String(repeating: "z", count: 32),
            "apiKeyForTwilioAccount1234567", "nextPageToken", "client_secret", "clientSecret"
        ]
        var g = Bytes(x: 9)
        for round in 0..<3 {
            for name in names {
                let key = Array(name.utf8)
                for tail in 0..<12 {
                    // The key inside a longer text: bytes after it may be read a word at a time, never counted.
                    let text = key + (0..<tail).map { _ in round == 0 ? UInt8(ascii: "s") : g.next() }
                    text.withUnsafeBufferPointer { t in
                        let raw = UnsafeBufferPointer(rebasing: t[0..<key.count])
                        let got = scanner.keyInfo(raw, readable: t.count)
                        var fresh = reference.keyInfo(raw, hash: UInt64(round * 1000 + tail) << 1 | 1)
                        #expect(got.listed == fresh.listed && got.hints == fresh.hints, "\(name) + \(tail)")
                        fresh = (reference.bodyNames.contains(raw: raw), NameHints.of(raw: raw))
                        #expect(got.listed == fresh.listed && got.hints == fresh.hints, "\(name) + \(tail)")
                    }
                }
            }
        }
    }

    /// A credential in an inline JSON body, preceded by strings of every length: the string scans end at
    /// each offset of an 8-byte word, escaped (`\\"`, `\\\\`) or not, and the token is still found.
    @Test func bodyStringsEndingAtEveryOffsetOfAWord() throws {
        let token = "ghp_" + Fake.s(36, Fake.alnum, seed: 15)
        for pad in 0..<20 {
            for escape in ["", "\\\"", "\\\\", "\\n", "é"] {
                let text = JSONOut.object([
                    "a": .string(String(repeating: "x", count: pad) + escape),
                    "n": .int(pad * 37),
                    "note": .string("see " + token)
                ]).render(pretty: false)
                let found = try Harness.run([Harness.network(responseBody: Harness.textBody(text))])
                #expect(
                    found.contains { $0.rule == "secret.github-token" && PrefilterTests.sameValue($0.fingerprint, token) },
                    "pad \(pad) escape \(escape)")
                // The same document in a blob (read as JSON text that is not escaped once more).
                let inBlob = try Harness.run([
                    Harness.network(
                        responseBody: .object([
                            "size": .int(text.utf8.count), "contentType": .string("application/json"),
                            "encoding": .string("base64"), "data": .string(Base64.encode(Array(text.utf8)))
                        ]))
                ])
                #expect(
                    inBlob.contains { $0.rule == "secret.github-token" && PrefilterTests.sameValue($0.fingerprint, token) },
                    "base64 pad \(pad) escape \(escape)")
            }
        }
    }

    /// A listed name whose key ends at each offset of a word, followed by text that would make it another name.
    @Test func listedNamesAtEveryOffset() throws {
        for pad in 0..<17 {
            let key = String(repeating: "_", count: pad) + "password"
            let text = "{\"\(key)\":\"hunter-\(pad)\",\"\(key)s\":\"x\"}"
            let found = try Harness.run([Harness.network(responseBody: Harness.textBody(text))])
            #expect(found.filter { $0.rule == "redaction.body-field" }.count == 1, "pad \(pad)")
        }
    }
}
