import Foundation
import SiftTestSupport
import Testing
@testable import SiftArchive

/// `ZipWriter`: entries added whole or written in pieces (local header filled in on a file, a data
/// descriptor on a sink), and zip64 records where the 32-bit fields do not fit. The zip64 cases
/// lower `zip32Limit` (a test-only knob) so they need kilobytes, not 4 GiB.
@Suite struct ZipWriterTests {
    /// Bytes that deflate does not shrink much.
    static func noise(_ n: Int, seed: UInt64) -> [UInt8] {
        var x = seed | 1
        return (0..<n).map { _ in
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return UInt8(truncatingIfNeeded: x)
        }
    }

    static let contents: [(String, [UInt8], Bool)] = [
        ("a/whole-stored.bin", noise(3000, seed: 1), false),
        ("a/streamed-stored.bin", noise(5000, seed: 2), false),
        ("a/streamed-deflated.txt", Array(String(repeating: "lorem ipsum ", count: 900).utf8), true),
        ("a/whole-deflated.bin", noise(4000, seed: 3), true),
        ("a/empty", [], false),
        ("b/streamed-noise-deflated.bin", noise(6000, seed: 4), true)
    ]

    /// Writes `contents` (streamed entries in pieces of 700 bytes) with `limit` as the zip32 limit.
    static func write(to dir: TempDir, name: String, onFile: Bool, limit: UInt64, hint: Int64? = 1) throws -> String {
        let path = dir.path(name)
        let f = try NewFile(path: path)
        let zip = onFile ? ZipWriter(file: f) : ZipWriter(sink: { try f.write($0) })
        zip.zip32Limit = limit
        for (entry, bytes, deflate) in contents {
            if entry.contains("whole") || entry.hasSuffix("empty") {
                try zip.add(name: entry, bytes: bytes, deflate: deflate)
            } else {
                let e = try zip.begin(name: entry, deflate: deflate, sizeHint: hint.map { _ in Int64(bytes.count) })
                var at = 0
                while at < bytes.count {
                    try e.write(Array(bytes[at..<min(at + 700, bytes.count)]))
                    at += 700
                }
                try e.finish()
            }
        }
        try zip.finish()
        try f.close()
        return path
    }

    /// Read back by pbsift's own reader (no issue, every byte), by Python's zipfile and by unzip.
    static func expectReadsBack(_ path: String, _ label: String) {
        let (result, seen) = walkAll(path)
        #expect(result.issues.isEmpty, "\(label): \(result.issues.map(\.message))")
        #expect(seen.map(\.name) == contents.map(\.0), "\(label)")
        for (v, c) in zip(seen, contents) { #expect(v.bytes == c.1 && v.error == nil, "\(label): \(c.0)") }
        for tool in [["python3", "-m", "zipfile", "-t", path], ["unzip", "-tq", path]] {
            guard let status = ExternalTool.status(tool) else { continue }
            #expect(status == 0, "\(label): \(tool[0]) rejects it")
        }
    }

    @Test(arguments: [true, false]) func streamedEntriesReadBack(onFile: Bool) throws {
        let dir = TempDir()
        let path = try Self.write(to: dir, name: "plain.zip", onFile: onFile, limit: 0xFFFF_FFFF)
        Self.expectReadsBack(path, onFile ? "file" : "sink")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // No zip64 record where nothing needs one.
        #expect(
            !bytes.indices.dropLast(3).contains { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 6 && bytes[$0 + 3] == 6 })
    }

    /// On a file, a streamed entry's local header is what `add` writes for the same bytes.
    @Test func aStreamedEntryOnAFileMatchesAWholeOne() throws {
        let dir = TempDir()
        let data = Array(String(repeating: "abc def ", count: 5000).utf8)
        var whole: [UInt8] = []
        let w = ZipWriter { whole += $0 }
        try w.add(name: "x.txt", bytes: data, deflate: true)
        try w.finish()
        let f = try NewFile(path: dir.path("s.zip"))
        let s = ZipWriter(file: f)
        let e = try s.begin(name: "x.txt", deflate: true, sizeHint: Int64(data.count))
        try e.write(Array(data[..<1234]))
        try e.write(Array(data[1234...]))
        try e.finish()
        try s.finish()
        try f.close()
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: dir.path("s.zip")))) == whole)
    }

    /// Sizes and offsets past the (lowered) limit: zip64 extra fields, a zip64 end record and locator.
    @Test(arguments: [true, false]) func zip64SizesAndOffsets(onFile: Bool) throws {
        let dir = TempDir()
        // 2500: entries of 3000 bytes and more need zip64 sizes; later offsets too; streamed entries
        // with a hint of half the limit or more reserve the local zip64 field.
        let path = try Self.write(to: dir, name: "z64.zip", onFile: onFile, limit: 2500)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let has = { (sig: [UInt8]) in bytes.indices.dropLast(3).contains { Array(bytes[$0..<($0 + 4)]) == sig } }
        #expect(has([0x50, 0x4B, 0x06, 0x06]) && has([0x50, 0x4B, 0x06, 0x07]))
        Self.expectReadsBack(path, onFile ? "zip64 file" : "zip64 sink")
    }

    /// A streamed entry expected small that grows past the limit without room for a zip64 field is
    /// an error, never a damaged archive.
    @Test func anEntryThatOutgrowsItsHintIsAnError() throws {
        let dir = TempDir()
        let f = try NewFile(path: dir.path("grow.zip"))
        let zip = ZipWriter(file: f)
        zip.zip32Limit = 1000
        let e = try zip.begin(name: "x", deflate: false, sizeHint: 10)
        try e.write(Self.noise(1500, seed: 9))
        #expect(throws: WriteError.self) { try e.finish() }
    }

    /// 65,535 entries and more: the count goes in the zip64 end record.
    @Test func manyEntriesUseTheZip64EndRecord() throws {
        let dir = TempDir()
        let path = dir.path("many.zip")
        let f = try NewFile(path: path)
        let zip = ZipWriter(file: f)
        for i in 0..<65_536 { try zip.add(name: "n/\(i)", bytes: [UInt8(i & 0x7F)]) }
        try zip.finish()
        try f.close()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // The end record's counts say "see the zip64 record".
        let end = bytes.count - 22
        #expect(bytes[end..<(end + 4)] == [0x50, 0x4B, 0x05, 0x06] && bytes[end + 10] == 0xFF && bytes[end + 11] == 0xFF)
        // pbsift reading it back (through scrub) is checked in ScrubStreamTests.
        if let status = ExternalTool.status(["python3", "-m", "zipfile", "-t", path]) { #expect(status == 0) }
    }
}
