import Foundation
import Testing
@testable import SiftArchive

/// A zip entry whose local header disagrees with its central record shows different contents to
/// different tools: every disagreement is an `archive.header-mismatch` issue, and the input is partial.
@Suite struct HeaderMismatchTests {
    /// (what, byte offset in the first local header, new value, words the message must hold)
    static let cases: [(String, Int, UInt8, String)] = [
        ("method", 8, 0, "compression method (local 0, central 8)"),
        ("crc", 14, 0x5A, "crc-32"),
        ("compressed size", 18, 0x01, "compressed size"),
        ("uncompressed size", 22, 0x02, "uncompressed size"),
        ("name", 30, UInt8(ascii: "X"), "the name")
    ]

    @Test(arguments: cases.indices)
    func localHeaderDisagreeing(index: Int) {
        let (what, offset, value, words) = Self.cases[index]
        let body = Array(String(repeating: "{\"type\":\"log\",\"seq\":1}\n", count: 4).utf8)
        var bytes = makeZip([ZipItem(name: "a.jsonl", data: body)])
        bytes[offset] = value
        let dir = TempDir()
        let (result, seen) = walkAll(dir.write("m.zip", bytes))
        let mismatch = result.issues.filter { $0.problem == .headerMismatch }
        #expect(mismatch.count == 1, "\(what)")
        #expect(mismatch.first?.message.contains(words) == true, "\(what): \(mismatch.first?.message ?? "")")
        #expect(result.isPartial, "\(what)")
        // Read as the central directory says: the bytes are intact.
        #expect(seen.first?.bytes == body, "\(what)")
    }

    @Test func agreeingHeadersAreQuiet() {
        let body = Array("{\"type\":\"log\",\"seq\":1}\n".utf8)
        let dir = TempDir()
        for item in [
            ZipItem(name: "a", data: body), ZipItem(name: "b", data: body, deflate: false),
            ZipItem(name: "c", data: body, dataDescriptor: true), ZipItem(name: "d", data: body, zip64: true)
        ] {
            let (result, _) = walkAll(dir.write("\(item.name).zip", makeZip([item])))
            #expect(!result.problems.contains(.headerMismatch), "\(item.name): \(result.issues)")
        }
    }
}
