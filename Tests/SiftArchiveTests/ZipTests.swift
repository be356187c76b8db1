import Foundation
import Testing
@testable import SiftArchive

@Suite struct ZipTests {
    let body = Array(String(repeating: "{\"type\":\"log\",\"message\":\"hello\"}\n", count: 300).utf8)

    @Test func storedDeflateDescriptorsAndZip64() {
        let dir = TempDir()
        let zip = makeZip(
            [
                ZipItem(name: "PalbeConsole/sessions/a.jsonl", data: body, deflate: true),
                ZipItem(name: "PalbeConsole/sessions/b.jsonl", data: Array("stored\n".utf8), deflate: false),
                ZipItem(name: "PalbeConsole/", data: [], deflate: false),
                ZipItem(name: "PalbeConsole/sessions/c.jsonl", data: body, deflate: true, dataDescriptor: true),
                ZipItem(name: "PalbeConsole/sessions/d.jsonl", data: body, deflate: true, zip64: true),
                ZipItem(name: "PalbeConsole/sessions/e.jsonl", data: body, deflate: false, dataDescriptor: true, zip64: true),
                ZipItem(name: "empty.jsonl", data: [], deflate: true)
            ], zip64End: true)
        let (result, seen) = walkAll(dir.write("export.bin", zip))
        #expect(result.container == .zip)
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(!result.isPartial)
        #expect(
            seen.map(\.name) == [
                "PalbeConsole/sessions/a.jsonl", "PalbeConsole/sessions/b.jsonl", "PalbeConsole/sessions/c.jsonl",
                "PalbeConsole/sessions/d.jsonl", "PalbeConsole/sessions/e.jsonl", "empty.jsonl"
            ])
        #expect(
            seen[0].bytes == body && seen[1].text == "stored\n" && seen[2].bytes == body && seen[3].bytes == body && seen[4].bytes == body)
        #expect(seen[5].bytes.isEmpty)
        #expect(seen.allSatisfy { $0.error == nil })
        #expect(result.bytesRead == Int64(body.count * 4 + 7))
    }

    @Test func prependedStubAndEmptyArchive() {
        let dir = TempDir()
        let zip = makeZip([ZipItem(name: "a.jsonl", data: body)], prefix: Array(repeating: 0x90, count: 333))
        let (result, seen) = walkAll(dir.write("sfx.zip", zip))
        // The entries are found past the stub; the stub's bytes belong to no entry and are said to
        // be unread (a credential could sit there).
        #expect(result.container == .zip && result.problems == [.corrupt])
        #expect(
            result.issues.first?.message.contains("333 bytes of the zip belong to no entry (the first at offset 0") == true,
            "\(result.issues)")
        #expect(seen.first?.bytes == body)
        let (empty, none) = walkAll(dir.write("empty.zip", makeZip([])))
        #expect(empty.container == .zip && empty.issues.isEmpty && none.isEmpty)
    }

    @Test func crcMismatchIsRecordedAndThrown() {
        let dir = TempDir()
        let zip = makeZip([
            ZipItem(name: "bad.jsonl", data: body, deflate: true, crc: 0x1234_5678),
            ZipItem(name: "bad-stored.jsonl", data: body, deflate: false, crc: 0x1234_5678),
            ZipItem(name: "good.jsonl", data: body)
        ])
        let (result, seen) = walkAll(dir.write("x.zip", zip))
        #expect(seen.count == 3)
        #expect(seen[0].bytes == body && seen[0].error?.problem == .crcMismatch)
        #expect(seen[1].bytes == body && seen[1].error?.problem == .crcMismatch)
        #expect(seen[2].error == nil)
        #expect(result.problems == [.crcMismatch, .crcMismatch])
        #expect(result.issues[0].entry == "bad.jsonl")
        #expect(result.issues[0].message.contains("bad.jsonl") && result.issues[0].message.contains("crc-32"))
        #expect(result.isPartial)
    }

    @Test func corruptDeflateAndLyingSizes() {
        let dir = TempDir()
        let zip = makeZip([
            ZipItem(name: "corrupt.jsonl", data: body, compressedOverride: [0x07, 0xFF, 0xFF, 0xFF, 0, 0]),
            ZipItem(name: "short.jsonl", data: body, declaredSize: 100),
            ZipItem(name: "ok.jsonl", data: body)
        ])
        let (result, seen) = walkAll(dir.write("x.zip", zip))
        #expect(seen.map(\.name) == ["corrupt.jsonl", "short.jsonl", "ok.jsonl"])
        #expect(seen[0].error?.problem == .corrupt)
        #expect(seen[1].error?.problem == .corrupt && seen[1].bytes.count == 100)
        #expect(seen[2].error == nil && seen[2].bytes == body)
        #expect(result.problems == [.corrupt, .corrupt])
    }

    @Test func endRecordLyingAboutItsEntryCount() {
        let dir = TempDir()
        let items = (0..<5).map { ZipItem(name: "s/\($0).jsonl", data: Array("\($0)\n".utf8)) }
        for lie in [2, 9, 0] {
            let (result, seen) = walkAll(dir.write("lie\(lie).zip", makeZip(items, entryCount: lie)))
            #expect(seen.count == 5, "count \(lie)")
            #expect(result.problems == [.corrupt], "count \(lie)")
            #expect(result.issues.first?.message.contains("says \(lie) entries") == true)
        }
    }

    @Test func localHeaderPastTheEndAndCutShortFile() {
        let dir = TempDir()
        let zip = makeZip([
            ZipItem(name: "a.jsonl", data: body),
            ZipItem(name: "ghost.jsonl", data: body, localOffsetOverride: 0x0FFF_FFFF),
            ZipItem(name: "c.jsonl", data: body)
        ])
        let (result, seen) = walkAll(dir.write("x.zip", zip))
        #expect(seen.map(\.name) == ["a.jsonl", "c.jsonl"])
        // The ghost's own local header and data, where the directory does not point, are read by no one.
        #expect(result.problems == [.corrupt, .corrupt])
        #expect(result.issues[0].entry == "ghost.jsonl")
        #expect(result.issues[1].message.contains("belong to no entry"))
    }

    @Test func cutShortZipIsReadFromItsLocalHeaders() {
        let dir = TempDir()
        let other = Array(String(repeating: "{\"type\":\"network\"}\n", count: 500).utf8)
        let items = [
            ZipItem(name: "a.jsonl", data: body),
            ZipItem(name: "b.jsonl", data: Array("stored\n".utf8), deflate: false),
            ZipItem(name: "dir/", data: [], deflate: false, dataDescriptor: true),
            ZipItem(name: "c.jsonl", data: other, dataDescriptor: true),
            ZipItem(name: "d.jsonl", data: body, dataDescriptor: true, zip64: true),
            ZipItem(name: "e.jsonl", data: other, dataDescriptor: true, crc: 0xDEAD_BEEF),
            ZipItem(name: "f.jsonl", data: body)
        ]
        let whole = makeZip(items)
        // Cut just before the central directory: every entry is still there.
        let cdAt = Int(whole.count - 22 - items.reduce(0) { $0 + 46 + $1.name.utf8.count + ($1.zip64 ? 28 : 0) })
        let path = dir.write("cut.zip", Array(whole[..<cdAt]))
        let (result, seen) = walkAll(path)
        #expect(result.container == .zip && !result.unreadable)
        #expect(seen.map(\.name) == ["a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl", "e.jsonl", "f.jsonl"])
        #expect(seen.map(\.bytes.count) == [body.count, 7, other.count, body.count, other.count, body.count])
        #expect(seen.map(\.bytes) == [body, Array("stored\n".utf8), other, body, other, body])
        #expect(result.problems == [.truncated, .crcMismatch], "\(result.issues)")
        #expect(result.issues.first?.message.contains("local headers") == true)
        // A visitor that reads only the start of each entry: the walk still finds every entry.
        let (skim, skimmed) = walkAll(path, readAtMost: 5)
        #expect(skimmed.count == 6)
        #expect(skim.problems == [.truncated, .crcMismatch])
        // Cut in the middle: the entries before the cut are read, the one cut is truncated, nothing after.
        let cAt = whole.count / 2
        let (mid, some) = walkAll(dir.write("mid.zip", Array(whole[..<cAt])))
        #expect(some.count >= 2 && some.count < 6)
        #expect(some.last?.error?.problem == .truncated)
        #expect(mid.problems == [.truncated, .truncated], Comment(rawValue: mid.issues.map(\.message).joined(separator: " / ")))
        // An end record pointing nowhere: the local headers are read instead.
        var lying = whole
        let eocd = lying.count - 22
        for i in 16..<20 { lying[eocd + i] = 0x7F }
        let (redirect, found) = walkAll(dir.write("lying.zip", lying))
        #expect(found.count == 6 && redirect.problems == [.corrupt, .crcMismatch])
        // Random bytes named .zip: nothing at all.
        let (none, nothing) = walkAll(dir.write("junk.zip", Array(repeating: 0x41, count: 1000)))
        #expect(none.unreadable && nothing.isEmpty && none.problems == [.truncated])
    }

    @Test func linksEncryptionAndMethodsAreSkipped() {
        let dir = TempDir()
        let zip = makeZip([
            ZipItem(name: "link", data: Array("/etc/passwd".utf8), deflate: false, unixMode: 0o120777),
            ZipItem(name: "fifo", data: [], deflate: false, unixMode: 0o010644),
            ZipItem(name: "secret.jsonl", data: body, encrypted: true),
            ZipItem(name: "bzip.jsonl", data: body, method: 12),
            ZipItem(name: "dir/", data: [], deflate: false, unixMode: 0o040755),
            ZipItem(name: "file.jsonl", data: body, unixMode: 0o100644)
        ])
        let (result, seen) = walkAll(dir.write("x.zip", zip))
        #expect(seen.map(\.name) == ["file.jsonl"])
        #expect(result.problems == [.linkSkipped, .linkSkipped, .unsupported, .unsupported])
        #expect(result.issues[0].message.contains("symbolic link"))
        #expect(result.issues[1].message.contains("fifo"))
        #expect(result.issues[3].message.contains("bzip2"))
        #expect(result.isPartial)
    }

    @Test func traversalAbsoluteBackslashAndDuplicateNames() {
        let dir = TempDir()
        let zip = makeZip([
            ZipItem(name: "../../etc/x", data: Array("1".utf8)),
            ZipItem(name: "/abs/y", data: Array("2".utf8)),
            ZipItem(name: "win\\dir\\z.jsonl", data: Array("3".utf8)),
            ZipItem(name: "C:\\temp\\w", data: Array("4".utf8)),
            ZipItem(name: "etc/x", data: Array("5".utf8)),
            ZipItem(name: "nul", data: Array("6".utf8), rawName: Array("a\u{0}b".utf8))
        ])
        let (result, seen) = walkAll(dir.write("x.zip", zip))
        #expect(seen.map(\.name) == ["etc/x", "abs/y", "win/dir/z.jsonl", "temp/w", "etc/x", "a\u{FFFD}b"])
        #expect(seen.map(\.raw) == ["../../etc/x", "/abs/y", "win\\dir\\z.jsonl", "C:\\temp\\w", "etc/x", "a\u{0}b"])
        #expect(seen.map(\.text) == ["1", "2", "3", "4", "5", "6"])
        #expect(result.problems == [.unsafePath, .unsafePath, .unsafePath, .unsafePath, .duplicateEntry, .unsafePath])
        #expect(!result.isPartial, "unsafe names and duplicates are read, so the input is whole")
    }

    @Test func bombEntryStopsAtTheInputLimit() {
        let dir = TempDir()
        let bomb = deflateBomb(units: 520_000) // ~1 GiB of zeros
        let zip = makeZip([
            ZipItem(name: "bomb.jsonl", data: [], crc: 0, compressedOverride: bomb.stream, declaredSize: 0x7FFF_FFFF),
            ZipItem(name: "after.jsonl", data: body)
        ])
        var limits = ReadLimits.default
        limits.maxInputBytes = 16 << 20
        let clock = ContinuousClock()
        var outcome: (WalkResult, [Visited])?
        let elapsed = clock.measure { outcome = walkAll(dir.write("bomb.zip", zip), limits: limits) }
        let (result, seen) = outcome!
        #expect(seen.map(\.name) == ["bomb.jsonl"], "the walk stops at the limit")
        #expect(seen.first?.bytes.count == 16 << 20)
        #expect(seen.first?.error?.problem == .decompressionLimit)
        #expect(result.problems == [.decompressionLimit])
        #expect(result.bytesRead == 16 << 20)
        #expect(elapsed < .seconds(2))
    }

    @Test func entryCountLimit() {
        let dir = TempDir()
        let zip = makeZip((0..<10).map { ZipItem(name: "f\($0)", data: [UInt8(ascii: "x")]) })
        var limits = ReadLimits.default
        limits.maxEntries = 4
        let (result, seen) = walkAll(dir.write("many.zip", zip), limits: limits)
        #expect(seen.count == 4)
        #expect(result.problems == [.decompressionLimit])
        #expect(result.issues[0].message.contains("more than 4 entries"))
    }

    @Test func unreadEntriesAreFine() {
        let dir = TempDir()
        let zip = makeZip([ZipItem(name: "a", data: body), ZipItem(name: "b", data: body, deflate: false), ZipItem(name: "c", data: body)])
        let (result, seen) = walkAll(dir.write("x.zip", zip), readAtMost: 10)
        #expect(seen.map(\.bytes) == [Array(body[..<10]), Array(body[..<10]), Array(body[..<10])])
        #expect(result.issues.isEmpty)
        #expect(result.bytesRead == 30)
    }
}
