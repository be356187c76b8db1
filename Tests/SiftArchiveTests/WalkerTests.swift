import Foundation
import Testing
@testable import SiftArchive

@Suite struct WalkerTests {
    let body = Array("{\"type\":\"session\",\"seq\":0}\n{\"type\":\"log\",\"seq\":1}\n".utf8)

    @Test func bareJsonlFile() {
        let dir = TempDir()
        let (result, seen) = walkAll(dir.write("ses_1.jsonl", body))
        #expect(result.container == .jsonl && result.issues.isEmpty && !result.unreadable)
        #expect(seen.map(\.name) == ["ses_1.jsonl"] && seen[0].bytes == body)
        #expect(result.bytesRead == Int64(body.count))
    }

    @Test func emptyFileIsAnEmptyJsonlEntry() {
        let dir = TempDir()
        let (result, seen) = walkAll(dir.write("empty.zip", []))
        #expect(result.container == .jsonl && result.issues.isEmpty && !result.unreadable)
        #expect(seen.count == 1 && seen[0].bytes.isEmpty)
    }

    @Test func missingFileIsUnreadable() {
        let dir = TempDir()
        let (result, seen) = walkAll(dir.path("nope.zip"))
        #expect(result.unreadable && result.isPartial && seen.isEmpty)
        #expect(result.problems == [.unreadable])
        // The path is the caller's to print (`pbsift: PATH: reason`); the reason stands alone.
        #expect(result.issues[0].message == "no such file or directory")
    }

    @Test func randomBytesNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        let dir = TempDir()
        for i in 0..<20 {
            var bytes = (0..<(1 + Int(rng.next() % 5000))).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Random bytes behind every magic number, too.
            switch i % 5 {
            case 1: bytes = [0x50, 0x4B, 3, 4] + bytes
            case 2: bytes = [0x1f, 0x8b, 8, 0] + bytes
            case 3: bytes = [0x50, 0x4B, 5, 6] + bytes
            case 4: bytes = makeTar([TarItem(name: "a", data: bytes)]).prefix(512) + bytes
            default: break
            }
            let (result, seen) = walkAll(dir.write("r\(i).bin", bytes))
            #expect(result.container != .unknown)
            #expect(seen.count <= 1 || result.container == .tar)
        }
        // Pure random bytes named .zip: no end record, nothing read.
        let (zip, none) = walkAll(dir.write("r.zip", Array(repeating: 0xAB, count: 4000)))
        #expect(zip.container == .zip && zip.unreadable && none.isEmpty)
    }

    @Test func containerIsSniffedNotNamed() {
        let dir = TempDir()
        let zip = makeZip([ZipItem(name: "a.jsonl", data: body)])
        #expect(walkAll(dir.write("looks-like.jsonl", zip)).0.container == .zip)
        #expect(walkAll(dir.write("looks-like.zip", makeTar([TarItem(name: "a", data: body)]))).0.container == .tar)
        let (gz, seen) = walkAll(dir.write("plain.jsonl", gzip(body)))
        #expect(gz.container == .jsonlGz && seen.first?.bytes == body && seen.first?.name == "plain.jsonl")
    }

    @Test func folderSortedNoLinksNoDevices() throws {
        let dir = TempDir()
        dir.write("export/sessions/b.jsonl", Array("b".utf8))
        dir.write("export/sessions/a.jsonl", Array("a".utf8))
        dir.write("export/a.txt", Array("t".utf8))
        dir.write("export/blobs/ff/ffee", Array("blob".utf8))
        dir.write("outside/secret", Array("secret".utf8))
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: dir.path("export/sessions/link.jsonl"), withDestinationPath: dir.path("outside/secret"))
        try fm.createSymbolicLink(atPath: dir.path("export/linkdir"), withDestinationPath: dir.path("outside"))
        #expect(mkfifo(dir.path("export/pipe"), 0o600) == 0)
        let (result, seen) = walkAll(dir.path("export"))
        #expect(result.container == .folder)
        #expect(seen.map(\.name) == ["a.txt", "blobs/ff/ffee", "sessions/a.jsonl", "sessions/b.jsonl"])
        #expect(seen.map(\.text) == ["t", "blob", "a", "b"])
        #expect(Set(result.issues.map(\.problem)) == [.linkSkipped])
        #expect(result.issues.count == 3)
        #expect(Set(result.issues.compactMap(\.entry)) == ["sessions/link.jsonl", "linkdir", "pipe"])
        #expect(result.issues.contains { $0.message.contains("fifo") })
        #expect(!seen.contains { $0.text == "secret" })
        #expect(result.isPartial)
    }

    @Test func folderNamesThatAreNotUTF8StayReadable() {
        let dir = TempDir()
        dir.write("f/ok.jsonl", Array("ok".utf8))
        let raw = Array(dir.path("f/bad").utf8) + [0xFF, 0x2E, 0x6A, 0] // "bad\xFF.j"
        let fd = raw.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600)
        }
        #expect(fd >= 0)
        _ = write(fd, "data", 4)
        close(fd)
        let (result, seen) = walkAll(dir.path("f"))
        #expect(result.issues.isEmpty)
        // The stray byte is kept (as U+10FF00 + byte), so the name maps back to exactly that file.
        #expect(seen.map(\.name) == ["bad\u{10FFFF}.j", "ok.jsonl"])
        #expect(PathBytes.bytes(seen[0].name) == Array("bad".utf8) + [0xFF, 0x2E, 0x6A])
        #expect(seen.map(\.text) == ["data", "ok"])
    }

    @Test func folderEntryLimitAndByteLimit() {
        let dir = TempDir()
        for i in 0..<10 { dir.write("f/\(i).jsonl", [UInt8](repeating: 65, count: 100)) }
        var limits = ReadLimits.default
        limits.maxEntries = 5
        let (r1, s1) = walkAll(dir.path("f"), limits: limits)
        #expect(s1.count == 5 && r1.problems == [.decompressionLimit])
        limits = .default
        limits.maxInputBytes = 250
        let (r2, s2) = walkAll(dir.path("f"), limits: limits)
        #expect(s2.count == 3 && r2.problems == [.decompressionLimit] && r2.bytesRead == 250)
        #expect(s2[2].bytes.count == 50 && s2[2].error?.problem == .decompressionLimit)
    }

    @Test func standardInputPlainAndGzip() {
        for (bytes, label) in [(body, "plain"), (gzip(body) + gzip(body), "gzip")] {
            var got: [Visited] = []
            let s2 = WalkState(limits: .default) { e in
                let (b, err) = drain(e.source)
                got.append(Visited(name: e.name, raw: e.rawName, bytes: b, error: err))
            }
            InputWalker.walkStdin(MemorySource(bytes), state: s2)
            #expect(got.map(\.name) == ["-"], "\(label)")
            #expect(got.first?.bytes == (label == "plain" ? body : body + body), "\(label)")
            #expect(s2.issues.isEmpty)
        }
    }

    @Test func jsonlGzCutShortKeepsTheLinesBeforeTheCut() {
        let dir = TempDir()
        let lines = Array((0..<5000).map { "{\"seq\":\($0)}\n" }.joined().utf8)
        let gz = gzip(lines, level: 1)
        let (result, seen) = walkAll(dir.write("ses.jsonl.gz", Array(gz[..<(gz.count * 2 / 3)])))
        #expect(result.container == .jsonlGz)
        #expect(result.problems == [.truncated])
        #expect(result.issues[0].entry == "ses.jsonl")
        #expect(seen[0].bytes.count > 0 && Array(lines[..<seen[0].bytes.count]) == seen[0].bytes)
        #expect(seen[0].error?.problem == .truncated)
    }

    @Test(arguments: [
        ("a/b.jsonl", "a/b.jsonl", false),
        ("./a//b/./c", "a/b/c", false),
        ("../../etc/x", "etc/x", true),
        ("a/../../b", "b", true),
        ("a/../b", "b", true),
        ("/etc/passwd", "etc/passwd", true),
        ("C:\\Windows\\x", "Windows/x", true),
        ("d:/x", "x", true),
        ("a\\b", "a/b", true),
        ("..", "_", true),
        ("x\u{0}y", "x\u{FFFD}y", true)
    ])
    func nameCleaning(raw: String, clean: String, unsafe: Bool) {
        let c = CleanName(raw)
        #expect(c.name == clean)
        #expect((c.unsafeReason != nil) == unsafe)
    }

    @Test func crc32MatchesKnownValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }
}
