import Foundation
import Testing
@testable import SiftArchive

@Suite struct GzipTests {
    let lines = Array((0..<2000).map { "{\"seq\":\($0),\"type\":\"log\",\"message\":\"line \($0)\"}\n" }.joined().utf8)

    @Test func inflatesOneMember() {
        let (out, error) = drain(GzipSource(wrapping: MemorySource(gzip(lines))))
        #expect(error == nil)
        #expect(out == lines)
    }

    @Test func headerFieldsAndMultipleMembers() {
        let a = Array(lines[..<1000]), b = Array(lines[1000...])
        let stream =
            gzip(a, header: GzipHeader(name: "a.jsonl", comment: "first", extra: [1, 2, 3, 4], headerCRC: true))
            + gzip(b, header: GzipHeader(name: "b.jsonl"))
            + gzip([])
        let (out, error) = drain(GzipSource(wrapping: MemorySource(stream)), chunk: 777)
        #expect(error == nil)
        #expect(out == lines)
    }

    @Test func truncatedStreamDeliversEverythingBeforeTheCut() {
        let stream = gzip(lines, level: 1)
        for cut in [5, 12, stream.count / 3, stream.count / 2, stream.count - 9, stream.count - 4, stream.count - 1] {
            let (out, error) = drain(GzipSource(wrapping: MemorySource(Array(stream[..<cut]))), chunk: 1000)
            #expect(error?.problem == .truncated, "cut at \(cut)")
            #expect(Array(lines[..<out.count]) == out, "cut at \(cut): bytes before the cut are good")
            if cut >= stream.count - 8 { #expect(out == lines, "cut in the trailer: all data delivered") }
        }
        // An empty stream is a truncated one.
        #expect(drain(GzipSource(wrapping: MemorySource([]))).1?.problem == .truncated)
    }

    @Test func crcAndSizeMismatch() {
        let d = deflateRaw(lines)
        let badCRC = gzipMember(deflated: d, crc: CRC32.checksum(lines) ^ 1, size: UInt32(lines.count))
        let (out, error) = drain(GzipSource(wrapping: MemorySource(badCRC)))
        #expect(out == lines)
        #expect(error?.problem == .crcMismatch)
        #expect(error?.message.contains("crc-32 mismatch") == true)
        let badSize = gzipMember(deflated: d, crc: CRC32.checksum(lines), size: UInt32(lines.count + 1))
        #expect(drain(GzipSource(wrapping: MemorySource(badSize))).1?.problem == .crcMismatch)
        // The error is sticky.
        let g = GzipSource(wrapping: MemorySource(badCRC))
        _ = drain(g)
        #expect(drain(g).1?.problem == .crcMismatch)
    }

    @Test func corruptDeflateData() {
        // Block type 3 is reserved: invalid from the first byte.
        let bad = gzipMember(deflated: [0x07, 0xFF, 0xFF, 0xFF], crc: 0, size: 0)
        #expect(drain(GzipSource(wrapping: MemorySource(bad))).1?.problem == .corrupt)
        // Damage in the middle of a real stream: whatever comes out before it is a prefix.
        var stream = gzip(lines, level: 9)
        for i in (stream.count / 2)..<(stream.count / 2 + 40) { stream[i] ^= 0x5A }
        let (out, error) = drain(GzipSource(wrapping: MemorySource(stream)))
        #expect(error?.problem == .corrupt || error?.problem == .crcMismatch)
        #expect(out.count < lines.count || error?.problem == .crcMismatch)
        // Not gzip at all.
        #expect(drain(GzipSource(wrapping: MemorySource("plain text"))).1?.problem == .corrupt)
    }

    @Test func trailingPaddingAndGarbage() {
        let padded = gzip(lines) + [UInt8](repeating: 0, count: 5000)
        let (out, error) = drain(GzipSource(wrapping: MemorySource(padded)))
        #expect(error == nil && out == lines)
        let garbage = gzip(lines) + Array("trailing junk".utf8)
        let (out2, error2) = drain(GzipSource(wrapping: MemorySource(garbage)))
        #expect(out2 == lines)
        #expect(error2?.problem == .corrupt)
        let padThenJunk = gzip(lines) + [0, 0, 0, 7]
        #expect(drain(GzipSource(wrapping: MemorySource(padThenJunk))).1?.problem == .corrupt)
    }

    @Test func limitIsExactAndSticky() {
        let atLimit = GzipSource(wrapping: MemorySource(gzip(lines)), limit: Int64(lines.count))
        #expect(drain(atLimit).1 == nil)
        let over = GzipSource(wrapping: MemorySource(gzip(lines)), limit: Int64(lines.count - 1))
        let (out, error) = drain(over, chunk: 4096)
        #expect(error?.problem == .decompressionLimit)
        #expect(out.count == lines.count - 1)
    }

    @Test func deflateBombStopsFastInSmallMemory() throws {
        // Check the hand-made bomb on a small size first.
        let small = deflateBomb(units: 100)
        let smallOut = drain(GzipSource(wrapping: MemorySource(gzipMember(deflated: small.stream, crc: 0, size: 0)))).0
        #expect(Int64(smallOut.count) == small.inflatedSize)
        #expect(smallOut.allSatisfy { $0 == 0 })

        // About 4 GiB of zeros from ~26 MB; the limit stops it at 64 MiB.
        let bomb = deflateBomb(units: 2_080_000)
        #expect(bomb.inflatedSize > 4_000_000_000)
        let g = GzipSource(wrapping: MemorySource(gzipMember(deflated: bomb.stream, crc: 0, size: 0)), limit: 64 << 20)
        let clock = ContinuousClock()
        var total = 0
        var thrown: ArchiveError?
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        let elapsed = clock.measure {
            do {
                while true {
                    let n = try g.read(into: buffer)
                    if n == 0 { break }
                    total += n
                }
            } catch {
                thrown = error as? ArchiveError
            }
        }
        #expect(thrown?.problem == .decompressionLimit)
        #expect(total == 64 << 20)
        #expect(elapsed < .seconds(2), "took \(elapsed)")
    }
}
