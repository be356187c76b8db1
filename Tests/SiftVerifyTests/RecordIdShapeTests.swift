import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// The redactor answers a record id of the canonical shape (`rec_` and eight lowercase hex digits)
/// without running the detectors over it (`IdShape.record`). These tests prove that its answer is the
/// one the detectors give, for every such id (not a sample), and that every other text is scanned.
///
/// What `VerifyTextDetector.secrets(in:kind: .text)` does with a text, and why none of it finds
/// anything in a canonical record id:
/// - the detectors' anchors, matched at every offset (`DetectorEngine.scan`): no anchor fits
///   (`noAnchorFitsInAnyId`), so no detector runs; no name hints are given, so no hinted one runs;
/// - the encoded runs (`encodedSpans`) and the text read as one base64 run (`base64Encoded`): both
///   look only at runs of 20 bytes or more, and an id has 12 (`tooShortForAnyEncodedRun`);
/// - JSON, form and gzip content, percent-decoding, `name=value` and `name: value` pairs: they need
///   `{`, `[`, `=`, `%`, `:` or a gzip header, which no id holds (`noStructuralByte`).
@Suite struct RecordIdShapeTests {
    static let n = IdShape.record.length
    /// The bytes each offset of a canonical id may hold.
    static let alphabet: [[UInt8]] = (0..<n).map(IdShape.record.allowed(at:))

    @Test func theShapeIsWhatIsChecked() {
        // Every text over the alphabet is canonical, and only those (each offset's other bytes refused).
        #expect(IdShape.record.isCanonical("rec_0c1d2e3f"))
        for o in 0..<Self.n {
            var b = Array("rec_0c1d2e3f".utf8)
            for c in UInt8(0)...UInt8(255) {
                b[o] = c
                let s = String(decoding: b, as: UTF8.self)
                let expected = Self.alphabet[o].contains(c)
                #expect(b.withUnsafeBufferPointer { IdShape.record.isCanonical($0) } == expected, "offset \(o) byte \(c)")
                if c < 0x80 { #expect(IdShape.record.isCanonical(s) == expected) }
            }
        }
    }

    @Test func noAnchorFitsInAnyId() {
        IdShape.record.expectNoAnchorFits("record id")
    }

    @Test func noStructuralByte() {
        IdShape.record.expectNoStructuralByte()
    }

    @Test func tooShortForAnyEncodedRun() {
        #expect(Self.n < EncodedSpans.minBase64)
        #expect(Self.n < EncodedSpans.minHex)
        #expect(Self.n < ContentScanner.base64MinRun)
    }

    /// Ids that stress the shape: every digit, the highest and lowest, words spelt in hex, and many more.
    static var ids: [String] {
        var out: [String] = []
        for c in "0123456789abcdef" { out.append("rec_" + String(repeating: c, count: 8)) }
        for h in ["deadbeef", "cafebabe", "0badf00d", "01234567", "89abcdef", "fedcba98", "a1b2c3d4", "ba60e90f"] {
            out.append("rec_" + h)
        }
        for seed in 1...2000 { out.append("rec_" + Fake.s(8, Fake.hexLower, seed: UInt64(seed))) }
        return out
    }

    @Test func theRedactorGivesTheSameTextEitherWay() {
        IdShape.record.expectRedactorAgrees(ids: Self.ids) { id in String(id.dropFirst(4)) }
    }

    @Test func anyOtherTextIsScanned() {
        let id = "rec_" + Fake.s(8, Fake.hexLower, seed: 9)
        let hex = String(id.dropFirst(4))
        let head = String(id.dropLast())
        let near: [String] = [
            id.uppercased(), "REC_" + hex, "rec-" + hex, "req_" + hex, hex, id + "0", head, " " + id, id + " ",
            "x" + String(id.dropFirst()), head + "g", head + "A", head + "\u{e9}"
        ]
        for s in near { #expect(!IdShape.record.isCanonical(s), "\(s)") }

        // A credential after the prefix is found: such a text takes the full path.
        let key = "AKIA" + Fake.s(16, Fake.upperDigit, seed: 21)
        let shaped = "rec_" + key
        #expect(!IdShape.record.isCanonical(shaped))
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
