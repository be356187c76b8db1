import Foundation
import Testing
@_spi(Testing) @testable import SiftCore
@testable import SiftVerify

/// The redactor answers a request id of the canonical shape (`req_` and a lowercase UUID) without
/// running the detectors over it (`IdShape.request`). These tests prove that its answer is the one the
/// detectors give, for every such id (not a sample), and that every other text is scanned.
///
/// What `VerifyTextDetector.secrets(in:kind: .text)` does with a text, and why none of it finds
/// anything in a canonical id:
/// - the detectors' anchors, matched at every offset (`DetectorEngine.scan`): no anchor fits
///   (`noAnchorFitsInAnyId`), so no detector runs; no name hints are given, so no hinted one runs;
/// - the encoded runs (`encodedSpans`): the id is one run with lowercase non-hex letters (`r`, `q`)
///   and no uppercase one, which is neither hex nor base64 of text: skipped (`encodedRunsAreSkipped`);
/// - JSON, form and gzip content, percent-decoding, `name=value` and `name: value` pairs: they need
///   `{`, `[`, `=`, `%`, `:` or a gzip header, which no id holds (`noStructuralByte`);
/// - the id as one base64 run (`base64Encoded`): where its decoding holds a stem, the detectors run
///   over it, but no anchor fits in the decoding of any id, nor a run of base64 symbols long enough
///   to be decoded again (`theDecodingHoldsNothingTheDetectorsFind`).
@Suite struct RequestIdShapeTests {
    static let n = IdShape.request.length
    /// The bytes each offset of a canonical id may hold.
    static let alphabet: [[UInt8]] = (0..<n).map(IdShape.request.allowed(at:))

    @Test func noAnchorFitsInAnyId() {
        IdShape.request.expectNoAnchorFits("request id")
    }

    @Test func noStructuralByte() {
        IdShape.request.expectNoStructuralByte()
    }

    @Test func encodedRunsAreSkipped() {
        // Every byte is of the base64 alphabets: the id is one run, ...
        for set in Self.alphabet { #expect(set.allSatisfy { EncodedSpans.runBytes.contains($0) }) }
        // ... with a letter that is not hex ...
        #expect(Self.alphabet.contains { $0.count == 1 && $0[0] >= 0x67 && $0[0] <= 0x7A })
        // ... and no uppercase letter anywhere: `decodeRuns` takes it for neither hex nor base64 of text.
        #expect(!Self.alphabet.joined().contains { $0 >= 0x41 && $0 <= 0x5A })
    }

    /// The six-bit value of each base64 symbol (both alphabets), as `Base64Buffer` decodes them.
    static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x41...0x5A: return c - 0x41
        case 0x61...0x7A: return c - 0x61 + 26
        case 0x30...0x39: return c - 0x30 + 52
        case 0x2B, 0x2D: return 62
        case 0x2F, 0x5F: return 63
        default: return nil
        }
    }

    /// The six-bit values each symbol of a canonical id may have.
    static let sextets: [[UInt8]] = alphabet.map { $0.compactMap(sextet) }

    /// Whether some canonical id decodes (as base64) to bytes of which the `length` at `offset` pass
    /// `accepts` (byte index in the window, byte). Byte `k` of the decoding is made of symbols `s`
    /// and `s + 1`, `s = 4 (k / 3) + k % 3`: a search over the symbols, byte by byte, pruned at the
    /// first byte refused.
    static func decodingCanHold(length: Int, at offset: Int, _ accepts: (Int, UInt8) -> Bool) -> Bool {
        let values = sextets
        var chosen = [UInt8?](repeating: nil, count: n)
        func byte(_ k: Int, _ a: UInt8, _ b: UInt8) -> UInt8 {
            switch k % 3 {
            case 0: return UInt8(truncatingIfNeeded: Int(a) << 2 | Int(b) >> 4)
            case 1: return UInt8(truncatingIfNeeded: Int(a & 0xF) << 4 | Int(b) >> 2)
            default: return UInt8(truncatingIfNeeded: Int(a & 0x3) << 6 | Int(b))
            }
        }
        // Whether the search fails from byte `j` on depends only on `j` and on the symbol byte `j`
        // shares with byte `j - 1` (bytes of one group of four symbols share one): failures are remembered.
        var failed = Set<Int>()
        func search(_ j: Int) -> Bool {
            if j == length { return true }
            let k = offset + j
            let s = 4 * (k / 3) + k % 3
            let state = j << 8 | Int(chosen[s] ?? 0xFF)
            if failed.contains(state) { return false }
            var found = false
            defer { if !found { failed.insert(state) } }
            let firsts = chosen[s].map { [$0] } ?? values[s]
            let seconds = chosen[s + 1].map { [$0] } ?? values[s + 1]
            let (wasA, wasB) = (chosen[s], chosen[s + 1])
            for a in firsts {
                for b in seconds where accepts(j, byte(k, a, b)) {
                    chosen[s] = a
                    chosen[s + 1] = b
                    if search(j + 1) { found = true; return true }
                }
            }
            chosen[s] = wasA
            chosen[s + 1] = wasB
            return false
        }
        return search(0)
    }

    static func decodingCanHold(_ bytes: [UInt8], at offset: Int) -> Bool {
        decodingCanHold(length: bytes.count, at: offset) { bytes[$0] == $1 }
    }

    /// The id read as one base64 run (`base64Encoded`): its decoding is looked at only when a stem
    /// stands in it, and then by the detectors (`shapes`): their anchors, and the encoded runs in it.
    /// Neither can be there, whatever the id.
    @Test func theDecodingHoldsNothingTheDetectorsFind() throws {
        let engine = DetectorEngine()
        // Forty symbols decode to thirty bytes.
        let decodedCount = Self.n / 4 * 3
        let id = "req_" + Fake.uuid()
        let decoded = try #require(Base64.decode(id))
        #expect(decoded.count == decodedCount)
        // No anchor fits in the decoding (or its detector's shortest match is longer than it): no
        // detector finds anything in it.
        for d in engine.detectors where d.shortest <= decodedCount {
            for a in d.anchors {
                let b = Array(a.utf8)
                guard b.count <= decodedCount else { continue }
                for o in 0...(decodedCount - b.count) {
                    #expect(!Self.decodingCanHold(b, at: o), "anchor \(a) of \(d.id) at \(o)")
                }
            }
        }
        // No run of base64 symbols long enough to be decoded again (`encodedSpans`).
        for o in 0...(decodedCount - EncodedSpans.minBase64) {
            #expect(!Self.decodingCanHold(length: EncodedSpans.minBase64, at: o) { EncodedSpans.runBytes.contains($1) })
        }
        // The search finds what is there: the decoding of a real id, at each offset.
        for o in 0..<(decodedCount - 4) {
            #expect(Self.decodingCanHold(Array(decoded[o..<(o + 4)]), at: o))
        }
        // Some ids do decode to a stem (`\u`, which could spell any anchor in raw JSON text): what
        // covers them is the proof above, not the stems.
        #expect(Self.decodingCanHold(Array("\\u".utf8), at: 5))
    }

    /// Ids that stress the shape: every digit, the highest and lowest, words spelt in hex.
    static var ids: [String] {
        var out: [String] = []
        for c in "0123456789abcdef" {
            let h = String(repeating: c, count: 32)
            out.append(uuidString(h))
        }
        for h in [
            "deadbeefcafebabe0badf00d8badf00d", "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210",
            "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6", "e994fca3e26647828bd205e0459481d2"
        ] {
            out.append(uuidString(h))
        }
        for seed in 1...400 { out.append("req_" + Fake.uuid(seed: UInt64(seed))) }
        return out
    }

    static func uuidString(_ hex32: String) -> String {
        let c = Array(hex32)
        return "req_" + String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-"
            + String(c[20..<32])
    }

    @Test func theRedactorGivesTheSameTextEitherWay() {
        IdShape.request.expectRedactorAgrees(ids: Self.ids) { id in String(id.dropFirst(4).prefix(8)) }
    }

    @Test func anyOtherTextIsScanned() {
        let id = "req_" + Fake.uuid(seed: 9)
        let uuid = String(id.dropFirst(4))
        let head = String(id.dropLast())
        var near: [String] = [id.uppercased(), "REQ_" + uuid, "req-" + uuid, "rex_" + uuid, uuid]
        near += [id + "0", head, " " + id, id + " ", id.replacingOccurrences(of: "-", with: "")]
        near += ["x" + String(id.dropFirst()), head + "g", head + "A", head + "\u{e9}"]
        // A dash moved, a digit where a dash stands.
        var chars = Array(id)
        chars.swapAt(12, 13)
        near.append(String(chars))
        chars = Array(id)
        chars[17] = "0"
        near.append(String(chars))
        for s in near { #expect(!IdShape.request.isCanonical(s), "\(s)") }

        // A credential where the UUID would stand is found: such a text takes the full path.
        let key = "AKIA" + Fake.s(16, Fake.upperDigit, seed: 21)
        let shaped = "req_" + key + "-" + Fake.s(15, Fake.hexLower)
        #expect(!IdShape.request.isCanonical(shaped))
        let detector = VerifyTextDetector()
        #expect(!detector.secrets(in: shaped, kind: .text).isEmpty)
        #expect(!detector.secrets(in: id + " " + key, kind: .text).isEmpty)
        #expect(Redactor.verify().uniqueText((id + " " + key).untrusted).value?.contains(key) == false)
        // Near misses give what the full scan gives.
        let fullRedactor = Redactor(makeDetector: { VerifyTextDetector(config: VerifyConfig(), idShortcut: false) })
        for s in near + [shaped] {
            #expect(Redactor.verify().uniqueText(s.untrusted).value == fullRedactor.uniqueText(s.untrusted).value)
        }
    }
}

extension IdShape {
    /// No detector's anchor can stand anywhere in a canonical id of this shape (`what` names it), or
    /// the detector's shortest match is longer than the id (and than its base64 decoding) and so
    /// cannot stand in it either.
    func expectNoAnchorFits(_ what: String) {
        let engine = DetectorEngine()
        #expect(!engine.detectors.isEmpty)
        for d in engine.detectors where d.shortest <= length {
            for a in d.anchors {
                #expect(!fitsSomewhere(Array(a.utf8)), "anchor \(a) of \(d.id) fits in a \(what)")
            }
        }
    }

    /// No byte that starts JSON, form, percent-encoded, pair or gzip content fits in such an id.
    func expectNoStructuralByte() {
        for c in "{[=%:\"'@ \t\n\r\\".utf8 {
            #expect(!fitsSomewhere([c]))
        }
        // Not a gzip header (0x1F 0x8B) either.
        #expect(!fitsSomewhere([0x1F]))
    }

    /// The redactor with the id shortcut gives each of `ids` (all canonical) what it gives without
    /// it, and a known value inside an id (`knownPart` of `ids[20]`) is masked as before: the
    /// shortcut skips only the detectors.
    func expectRedactorAgrees(ids: [String], knownPart: (String) -> String) {
        let full = VerifyTextDetector(config: VerifyConfig(), idShortcut: false)
        let short = VerifyTextDetector(config: VerifyConfig(), idShortcut: true)
        let fullRedactor = Redactor(makeDetector: { VerifyTextDetector(config: VerifyConfig(), idShortcut: false) })
        let redactor = Redactor.verify()
        for id in ids {
            #expect(isCanonical(id), "\(id)")
            #expect(full.secrets(in: id, kind: .text).isEmpty, "\(id)")
            #expect(short.secrets(in: id, kind: .text).isEmpty)
            #expect(redactor.uniqueText(id.untrusted).value == fullRedactor.uniqueText(id.untrusted).value)
            #expect(redactor.text(id.untrusted).value == id)
        }
        let id = ids[20]
        let part = knownPart(id)
        let known = Redactor.verify(known: [part])
        let knownFull = Redactor(known: [part], makeDetector: { VerifyTextDetector(config: VerifyConfig(), idShortcut: false) })
        #expect(known.uniqueText(id.untrusted).value == knownFull.uniqueText(id.untrusted).value)
        #expect(known.uniqueText(id.untrusted).value != id)
    }

    /// Whether `needle` can stand at some offset of some canonical id of this shape.
    func fitsSomewhere(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= length else { return false }
        return (0...(length - needle.count)).contains { o in
            needle.indices.allSatisfy { allowed(at: o + $0).contains(needle[$0]) }
        }
    }
}
