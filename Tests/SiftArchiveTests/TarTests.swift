import Foundation
import Testing
@testable import SiftArchive

@Suite struct TarTests {
    let body = Array(String(repeating: "{\"type\":\"event\"}\n", count: 100).utf8)

    func items() -> [TarItem] {
        [
            TarItem(name: "PalbeConsole/", type: UInt8(ascii: "5")),
            TarItem(name: "PalbeConsole/sessions/a.jsonl", data: body),
            TarItem(name: "PalbeConsole/sessions/" + String(repeating: "long-", count: 30) + ".jsonl", data: Array("pax\n".utf8)),
            TarItem(
                name: "PalbeConsole/gnu/" + String(repeating: "name-", count: 25) + ".jsonl", data: Array("gnu\n".utf8), gnuLongName: true),
            TarItem(name: "zero-type", data: Array("nul type\n".utf8), type: 0),
            TarItem(name: "contiguous", data: Array("seven\n".utf8), type: UInt8(ascii: "7")),
            TarItem(name: "empty", data: [])
        ]
    }

    @Test func plainTarWithPaxAndGnuLongNames() {
        let dir = TempDir()
        let (result, seen) = walkAll(dir.write("export.tar", makeTar(items())))
        #expect(result.container == .tar)
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(seen.map(\.name) == items().dropFirst().map(\.name))
        #expect(seen.map(\.bytes) == items().dropFirst().map(\.data))
        #expect(seen[1].name.utf8.count > 100)
    }

    /// The writer (`scrub`'s) keeps names ustar cannot hold in a pax `path` record, and the walk
    /// reads them back whole: 4 KiB names, a 300-byte name with no `/`, multi-byte characters.
    @Test func writerKeepsLongNamesInPaxRecords() throws {
        let names = [
            "PalbeConsole/sessions/a.jsonl",
            "PalbeConsole/" + String(repeating: "d/", count: 2000) + "ses_1.jsonl",
            String(repeating: "n", count: 300),
            "PalbeConsole/" + String(repeating: "é", count: 120) + "/" + String(repeating: "😀", count: 40) + ".jsonl"
        ]
        var out: [UInt8] = []
        let w = TarWriter { out += $0 }
        for (i, n) in names.enumerated() { try w.add(name: n, bytes: Array("entry \(i)\n".utf8)) }
        try w.finish()
        let dir = TempDir()
        let (result, seen) = walkAll(dir.write("long.tar", out))
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(seen.map(\.name) == names)
        #expect(seen.map(\.bytes) == names.indices.map { Array("entry \($0)\n".utf8) })
        // A pax record's length counts its own digits, across a change in their number.
        for n in [1, 5, 6, 7, 90, 93, 94, 95, 996, 997] {
            let r = TarWriter.paxRecord("path", [UInt8](repeating: 0x61, count: n))
            #expect(String(decoding: r.prefix { $0 != 0x20 }, as: UTF8.self) == String(r.count))
        }
    }

    @Test func tarGzAndJsonlGzAreToldApartByTheirBytes() {
        let dir = TempDir()
        let tar = makeTar(items())
        let (result, seen) = walkAll(dir.write("export.bin", gzip(Array(tar[..<3000])) + gzip(Array(tar[3000...]))))
        #expect(result.container == .tarGz)
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(seen.map(\.bytes) == items().dropFirst().map(\.data))

        let (plain, lines) = walkAll(dir.write("ses_1.jsonl.gz", gzip(body)))
        #expect(plain.container == .jsonlGz && plain.issues.isEmpty)
        #expect(lines.map(\.name) == ["ses_1.jsonl"] && lines[0].bytes == body)
    }

    @Test func tarGzTrailerIsCheckedAfterTheEndBlocks() {
        let dir = TempDir()
        let tar = makeTar(items())
        let bad = gzipMember(deflated: deflateRaw(tar), crc: CRC32.checksum(tar) ^ 0xFF, size: UInt32(tar.count))
        let (result, seen) = walkAll(dir.write("x.tgz", bad))
        #expect(seen.count == 6)
        #expect(result.problems == [.crcMismatch])
    }

    @Test func v7TarIsRecognisedByItsChecksum() {
        var tar = makeTar([TarItem(name: "old.jsonl", data: body)])
        for i in 257..<265 { tar[i] = 0 } // no ustar magic
        var sum = 0
        for i in 0..<512 { sum += (148..<156).contains(i) ? 32 : Int(tar[i]) }
        let s = Array((String(repeating: "0", count: 6 - String(sum, radix: 8).count) + String(sum, radix: 8)).utf8)
        for (i, b) in s.enumerated() { tar[148 + i] = b }
        tar[154] = 0
        let dir = TempDir()
        let (result, seen) = walkAll(dir.write("old.bin", tar))
        #expect(result.container == .tar && result.issues.isEmpty)
        #expect(seen.first?.bytes == body)
    }

    @Test func linksDevicesUnknownTypesAndDirectories() {
        let dir = TempDir()
        let tar = makeTar([
            TarItem(name: "sym", type: UInt8(ascii: "2"), link: "/etc/passwd"),
            TarItem(name: "hard", type: UInt8(ascii: "1"), link: "sym"),
            TarItem(name: "chr", type: UInt8(ascii: "3")),
            TarItem(name: "fifo", type: UInt8(ascii: "6")),
            TarItem(name: "weird", data: Array("skip me".utf8), type: UInt8(ascii: "Q")),
            TarItem(name: "d/", type: UInt8(ascii: "5")),
            TarItem(name: "ok.jsonl", data: body)
        ])
        let (result, seen) = walkAll(dir.write("x.tar", tar))
        #expect(seen.map(\.name) == ["ok.jsonl"] && seen[0].bytes == body)
        #expect(result.problems == [.linkSkipped, .linkSkipped, .linkSkipped, .linkSkipped, .unsupported])
        #expect(result.issues[0].message.contains("symbolic link to '/etc/passwd'"))
        #expect(result.issues[2].message.contains("character device"))
        #expect(result.isPartial)
    }

    @Test func badChecksumAndTruncation() {
        let dir = TempDir()
        let tar = makeTar([
            TarItem(name: "a", data: body), TarItem(name: "b", data: body, breakChecksum: true), TarItem(name: "c", data: body)
        ])
        let (result, seen) = walkAll(dir.write("x.tar", tar))
        #expect(seen.map(\.name) == ["a"])
        #expect(result.problems == [.corrupt])

        let whole = makeTar([TarItem(name: "a", data: body), TarItem(name: "b", data: body)])
        let bData = 512 + (body.count + 511) / 512 * 512 + 512
        let (cut, partial) = walkAll(dir.write("cut.tar", Array(whole[..<(bData + 200)])))
        #expect(partial.map(\.name) == ["a", "b"])
        #expect(partial.last?.bytes == Array(body[..<200]))
        #expect(partial.last?.error?.problem == .truncated)
        #expect(cut.problems == [.truncated], "recorded once")

        let (noEnd, all) = walkAll(dir.write("noend.tar", makeTar([TarItem(name: "a", data: body)], end: false)))
        #expect(all.count == 1 && noEnd.problems == [.truncated])

        // A gzip'd tar cut short: entries before the cut are read, then truncated.
        let gz = gzip(makeTar((0..<20).map { TarItem(name: "f\($0)", data: body) }), level: 1)
        let (gcut, gseen) = walkAll(dir.write("cut.tar.gz", Array(gz[..<(gz.count / 2)])))
        #expect(gcut.container == .tarGz)
        #expect(gseen.count >= 2 && gseen.count < 20)
        #expect(gcut.problems == [.truncated])
    }

    @Test func unreadEntriesAreSkippedCorrectly() {
        let dir = TempDir()
        let big = [UInt8](repeating: UInt8(ascii: "z"), count: 300_000)
        let tar = makeTar([
            TarItem(name: "big", data: big), TarItem(name: "small", data: body), TarItem(name: "odd", data: Array("123".utf8))
        ])
        for path in [dir.write("x.tar", tar), dir.write("x.tgz", gzip(tar))] {
            let (result, seen) = walkAll(path, readAtMost: 10)
            #expect(seen.map(\.name) == ["big", "small", "odd"])
            #expect(seen.map(\.bytes) == [Array(big[..<10]), Array(body[..<10]), Array("123".utf8)])
            #expect(result.issues.isEmpty)
        }
    }

    @Test func traversalNamesAndGlobalPax() {
        let dir = TempDir()
        let tar = makeTar(
            [
                TarItem(name: "../../etc/x", data: Array("1".utf8)),
                TarItem(name: "/abs/y", data: Array("2".utf8)),
                TarItem(name: "short", data: Array("3".utf8), pax: ["path": "a\\b/../c"])
            ], globalPax: ["comment": "made by a test"])
        let (result, seen) = walkAll(dir.write("x.tar", tar))
        #expect(seen.map(\.name) == ["etc/x", "abs/y", "a/c"])
        #expect(result.problems == [.unsafePath, .unsafePath, .unsafePath])
        #expect(result.issues[0].message.contains("'../../etc/x'"))
    }

    @Test func emptyAndMalformedExtendedHeaders() {
        let dir = TempDir()
        var tar = makeTar([TarItem(name: "a", data: body, pax: ["comment": "x"])])
        // Make the pax header's data empty (size 0) and fix its checksum.
        let size = Array("00000000000\u{0}".utf8)
        for (i, b) in size.enumerated() { tar[124 + i] = b }
        var sum = 0
        for i in 0..<512 { sum += (148..<156).contains(i) ? 32 : Int(tar[i]) }
        let s = Array((String(repeating: "0", count: 6 - String(sum, radix: 8).count) + String(sum, radix: 8)).utf8)
        for (i, b) in s.enumerated() { tar[148 + i] = b }
        tar.removeSubrange(512..<1024) // the pax data block is gone
        let (result, seen) = walkAll(dir.write("x.tar", tar))
        #expect(seen.map(\.name) == ["a"] && seen.first?.bytes == body)
        #expect(result.issues.isEmpty)
        // Malformed pax records are reported and ignored.
        let bad = makeTar([TarItem(name: "b", data: body, pax: ["path": "x"])])
        var broken = bad
        broken[512] = UInt8(ascii: "7") // the record length no longer matches
        let (r2, s2) = walkAll(dir.write("y.tar", broken))
        #expect(s2.map(\.name) == ["b"])
        #expect(r2.problems == [.corrupt])
    }

    @Test func inputByteLimitAcrossEntries() {
        let dir = TempDir()
        let tar = makeTar((0..<5).map { TarItem(name: "f\($0)", data: [UInt8](repeating: 65, count: 1000)) })
        var limits = ReadLimits.default
        limits.maxInputBytes = 2500
        for path in [dir.write("x.tar", tar), dir.write("x.tar.gz", gzip(tar))] {
            let (result, seen) = walkAll(path, limits: limits)
            #expect(result.problems == [.decompressionLimit], "\(path): \(result.issues)")
            #expect(seen.count <= 3)
            #expect(result.bytesRead <= 2500)
        }
    }

    @Test func entryCountLimit() {
        let dir = TempDir()
        var limits = ReadLimits.default
        limits.maxEntries = 3
        let (result, seen) = walkAll(dir.write("x.tar", makeTar((0..<10).map { TarItem(name: "f\($0)", data: body) })), limits: limits)
        #expect(seen.count == 3)
        #expect(result.problems == [.decompressionLimit])
    }
}
