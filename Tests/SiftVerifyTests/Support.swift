import Foundation
import SiftArchive
import SiftTestSupport
@testable import SiftCore
@testable import SiftVerify

/// Test credentials are assembled at run time from a seeded generator: no realistic secret is a literal.
enum Fake {
    static let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    static let lower = "abcdefghijklmnopqrstuvwxyz"
    static let digits = "0123456789"
    static let alnum = upper + lower + digits
    static let b64url = alnum + "_-"
    static let b64 = alnum + "+/"
    static let hexLower = "0123456789abcdef"
    static let upperDigit = upper + digits
    static let lowerDigit = lower + digits

    /// A deterministic pseudo-random string over `alphabet` that mixes character classes.
    static func s(_ n: Int, _ alphabet: String, seed: UInt64 = 7) -> String {
        let a = Array(alphabet)
        var generator = SeededGenerator(seed: seed)
        var out = ""
        for _ in 0..<n { out.append(a[generator.below(a.count)]) }
        return out
    }

    /// `payload` in base58check (Bitcoin's alphabet, a double SHA-256 checksum), as wallets write keys.
    static func base58Check(_ payload: [UInt8]) -> String {
        var h1 = SHA256()
        h1.update(payload)
        var h2 = SHA256()
        h2.update(h1.finalize())
        let raw = payload + h2.finalize().prefix(4)
        let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        var digits: [Int] = [] // base 58, little-endian
        for byte in raw {
            var carry = Int(byte)
            for k in digits.indices {
                carry += digits[k] * 256
                digits[k] = carry % 58
                carry /= 58
            }
            while carry > 0 {
                digits.append(carry % 58)
                carry /= 58
            }
        }
        let zeros = raw.prefix { $0 == 0 }.count
        return String(repeating: "1", count: zeros) + String(digits.reversed().map { alphabet[$0] })
    }

    /// `n` bytes from a seeded generator.
    static func bytes(_ n: Int, seed: UInt64) -> [UInt8] {
        var g = SeededGenerator(seed: seed)
        return (0..<n).map { _ in UInt8(g.below(256)) }
    }

    /// A GitHub token as GitHub issues them: 30 random characters, then their CRC-32 in six base-62 digits.
    static func githubToken(_ prefix: String = "gh" + "p_", seed: UInt64) -> String {
        let body = s(30, alnum, seed: seed)
        var crc: UInt32 = 0xFFFF_FFFF
        for b in body.utf8 {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        var v = UInt64(~crc), tail = ""
        let base62 = Array(digits + upper + lower)
        for _ in 0..<6 {
            tail = String(base62[Int(v % 62)]) + tail
            v /= 62
        }
        return prefix + body + tail
    }

    /// A JWT header: base64url of a JSON object (`{"alg":"HS256","kid":"…"}`) with a seeded key id,
    /// as a token's header is (the detector decodes it).
    static func jwtHeader(seed: UInt64 = 1) -> String {
        let json = "{\"alg\":\"HS256\",\"kid\":\"" + s(12, alnum, seed: seed) + "\"}"
        return Base64.encode(Array(json.utf8)).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func uuid(seed: UInt64 = 3) -> String {
        let h = s(32, hexLower, seed: seed)
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }
}

/// Drives a `VerifyAnalysis` by hand with JSON lines and blobs.
struct Harness {
    static let sessionId = "ses_5f0c7a1e-3b8d-4c52-9a41-0d6e2f7b9c13"

    static func run(_ lines: [String], blobs: [[UInt8]] = [], blobsFirst: Bool = false, config: VerifyConfig = VerifyConfig()) throws
        -> [Finding]
    {
        let a = VerifyAnalysis(config: config)
        let input = InputContext(path: "export")
        let s = SessionContext(input: input, file: "sessions/\(sessionId).jsonl", root: "", blobsAvailable: true)
        s.sessionId = sessionId
        func feedBlobs() {
            for b in blobs {
                let hex = SHA256Hex.of(b)
                a.blob(
                    BlobContent(
                        input: "export", root: "", file: "blobs/\(hex.prefix(2))/\(hex)", name: hex, bytes: b,
                        size: Int64(b.count), complete: true, sha256: hex))
            }
        }
        if blobsFirst { feedBlobs() }
        for (i, l) in lines.enumerated() {
            let doc = try JSONDocument(string: l)
            a.record(Record(line: i + 1, json: doc.root), session: s)
        }
        if !blobsFirst { feedBlobs() }
        return a.finish()
    }

    /// A network record line with the given pieces.
    static func network(
        seq: Int = 1, url: String = "https://api.example.test/v1/x", requestHeaders: [(String, String)] = [],
        responseHeaders: [(String, String)] = [], requestBody: JSONOut? = nil, responseBody: JSONOut? = nil,
        transactions: [String] = [], error: String? = nil, extra: [String: JSONOut] = [:]
    ) -> String {
        func headers(_ h: [(String, String)]) -> JSONOut {
            .array(h.map { .object(["name": .string($0.0), "value": .string($0.1)]) })
        }
        var o: [String: JSONOut] = [
            "type": .string("network"), "seq": .int(seq), "ts": .string("2026-11-29T10:15:04.881Z"), "id": .string("rec_\(seq)"),
            "source": .string("sdk"), "kind": .string("http"), "method": .string("POST"), "url": .string(url),
            "state": .string("success"), "statusCode": .int(200),
            "request": .object(["headers": headers(requestHeaders), "body": requestBody ?? .object(["size": .int(0)])]),
            "response": .object(["headers": headers(responseHeaders), "body": responseBody ?? .object(["size": .int(0)])])
        ]
        if !transactions.isEmpty {
            o["metrics"] = .object([
                "transactions": .array(transactions.map { .object(["url": .string($0), "fetchType": .string("network")]) })
            ])
        }
        if let error { o["error"] = .object(["domain": .string("NSURLErrorDomain"), "code": .int(-1), "description": .string(error)]) }
        for (k, v) in extra { o[k] = v }
        return JSONOut.object(o).render(pretty: false)
    }

    static func textBody(_ text: String, _ contentType: String = "application/json") -> JSONOut {
        .object(["size": .int(text.utf8.count), "contentType": .string(contentType), "encoding": .string("utf8"), "text": .string(text)])
    }

    static func base64Body(_ bytes: [UInt8], _ contentType: String = "application/octet-stream") -> JSONOut {
        .object([
            "size": .int(bytes.count), "contentType": .string(contentType), "encoding": .string("base64"),
            "data": .string(Base64.encode(bytes))
        ])
    }

    static func blobBody(_ bytes: [UInt8], truncated: Bool = false) -> JSONOut {
        var o: [String: JSONOut] = [
            "size": .int(bytes.count), "contentType": .string("application/json"),
            "blob": .string("sha256:" + SHA256Hex.of(bytes)), "storedSize": .int(bytes.count)
        ]
        if truncated { o["truncated"] = .bool(true) }
        return .object(o)
    }

    static func log(seq: Int = 2, message: String = "ok", metadata: JSONOut? = nil, error: String? = nil) -> String {
        var o: [String: JSONOut] = [
            "type": .string("log"), "seq": .int(seq), "ts": .string("2026-11-29T10:15:05.017Z"),
            "level": .string("info"), "label": .string("checkout"), "message": .string(message)
        ]
        if let metadata { o["metadata"] = metadata }
        if let error { o["error"] = .object(["type": .string("URLError"), "description": .string(error)]) }
        return JSONOut.object(o).render(pretty: false)
    }

    static func event(seq: Int = 3, attributes: JSONOut) -> String {
        JSONOut.object([
            "type": .string("event"), "seq": .int(seq), "ts": .string("2026-11-29T10:15:05.017Z"),
            "name": .string("report.sent"), "attributes": attributes
        ]).render(pretty: false)
    }
}

import SiftArchive
enum SHA256Hex {
    static func of(_ b: [UInt8]) -> String { SHA256.hexDigest(b) }
}

/// Runs the detector engine over a string; returns (detector id, matched text, severity).
func detect(_ text: String, hints: String? = nil) -> [(id: String, value: String, severity: Severity)] {
    let engine = DetectorEngine()
    var out: [DetHit] = []
    var s = text
    return s.withUTF8 { b in
        engine.scan(ScanInput(b: b, hints: hints.map { NameHints.of(name: $0) } ?? []), into: &out)
        return out.map {
            (
                engine.detectors[$0.detector].id, String(decoding: UnsafeBufferPointer(rebasing: b[$0.start..<$0.end]), as: UTF8.self),
                $0.severity
            )
        }
    }
}
