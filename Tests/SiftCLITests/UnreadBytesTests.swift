import Foundation
import SiftArchive
import Testing
@testable import SiftCLI

/// Bytes of a zip or tar that belong to no entry (data before, between or after the entries, an
/// archive comment, a tar entry's padding, data after the tar end blocks) are read by no one: a
/// credential hidden there must not pass `verify` as clean. Each input is built at test time.
@Suite struct UnreadBytesTests {
    static let token = "gh" + "p_" + String(repeating: "r3dT", count: 9)
    static let session = Array((Fixture.clean.joined(separator: "\n") + "\n").utf8)

    static func zip(deflate: Bool = false) throws -> [UInt8] {
        var out: [UInt8] = []
        let w = ZipWriter { out += $0 }
        try w.add(name: "sessions/\(Fixture.sessionId).jsonl", bytes: session, deflate: deflate)
        try w.add(name: "store.json", bytes: Array(#"{"format":"palbe-console-store","formatVersion":1}"#.utf8), deflate: deflate)
        try w.finish()
        return out
    }

    static func tar() throws -> [UInt8] {
        var out: [UInt8] = []
        let w = TarWriter { out += $0 }
        try w.add(name: "sessions/\(Fixture.sessionId).jsonl", bytes: session)
        try w.finish()
        return out
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = try makeTempDir().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func verify(_ path: String) -> RunResult {
        let r = runCLI(["verify", path])
        #expect(!r.out.contains(token) && !r.err.contains(token))
        return r
    }

    @Test func cleanArchivesStayClean() throws {
        for (bytes, name) in [(try Self.zip(), "a.zip"), (try Self.zip(deflate: true), "b.zip"), (try Self.tar(), "c.tar")] {
            let r = Self.verify(try Self.write(bytes, name))
            #expect(r.status == 0, "\(name): \(r.err)")
        }
    }

    @Test func zipBytesOutsideEveryEntryAreNotClean() throws {
        let zip = try Self.zip()
        let hidden = Array("\n{\"message\":\"token \(Self.token)\"}\n".utf8)
        // An archive comment: the end record's comment length covers the hidden bytes.
        var commented = zip
        let n = hidden.count
        commented[commented.count - 2] = UInt8(n & 0xFF)
        commented[commented.count - 1] = UInt8(n >> 8)
        commented += hidden
        let cases: [(String, [UInt8])] = [("appended", zip + hidden), ("prepended", hidden + zip), ("comment", commented)]
        for (what, bytes) in cases {
            let r = Self.verify(try Self.write(bytes, "\(what).zip"))
            #expect(r.status == 2, "\(what): \(r.out)")
            #expect(r.err.contains("belong to no entry"), "\(what): \(r.err)")
        }
    }

    @Test func zipLocalEntryMissingFromTheDirectoryIsNotClean() throws {
        // Two entries; the central directory then lists only the first.
        var out: [UInt8] = []
        let w = ZipWriter { out += $0 }
        try w.add(name: "sessions/\(Fixture.sessionId).jsonl", bytes: Self.session)
        try w.add(name: "sessions/hidden.jsonl", bytes: Array("token \(Self.token)\n".utf8))
        try w.finish()
        let eocd = out.count - 22
        let cdOffset = Int(out[eocd + 16]) | Int(out[eocd + 17]) << 8 | Int(out[eocd + 18]) << 16 | Int(out[eocd + 19]) << 24
        let u16 = { (at: Int) in Int(out[at]) | Int(out[at + 1]) << 8 }
        let firstLength = 46 + u16(cdOffset + 28) + u16(cdOffset + 30) + u16(cdOffset + 32)
        var end = Array(out[eocd...])
        end[8] = 1; end[9] = 0; end[10] = 1; end[11] = 0
        for k in 0..<4 { end[12 + k] = UInt8((firstLength >> (8 * k)) & 0xFF) }
        let smuggled = Array(out[..<(cdOffset + firstLength)]) + end
        let r = Self.verify(try Self.write(smuggled, "smuggled.zip"))
        #expect(r.status == 2, "\(r.out)")
        #expect(r.err.contains("belong to no entry"), "\(r.err)")
    }

    @Test func tarBytesOutsideEveryEntryAreNotClean() throws {
        let tar = try Self.tar()
        // The padding after the session's data (its size is not a multiple of 512).
        let hidden = Array("token \(Self.token)".utf8)
        let pad = (512 - Self.session.count % 512) % 512
        #expect(pad > hidden.count)
        var padded = tar
        padded.replaceSubrange((512 + Self.session.count)..<(512 + Self.session.count + hidden.count), with: hidden)
        for (what, bytes) in [("padding", padded), ("after the end blocks", tar + hidden + [UInt8](repeating: 0, count: 512))] {
            let r = Self.verify(try Self.write(bytes, "t.tar"))
            #expect(r.status == 2, "\(what): \(r.out)")
            #expect(r.err.contains("not zero"), "\(what): \(r.err)")
        }
        // Zeros after the end blocks (a writer's record padding) are fine.
        let zeros = Self.verify(try Self.write(tar + [UInt8](repeating: 0, count: 9216), "z.tar"))
        #expect(zeros.status == 0, "\(zeros.err)")
    }

    /// A file beside the sessions that is gzip'd is read inflated; one compressed another way (a zip
    /// under another name) is said unread.
    @Test func compressedOtherFilesAreReadOrSaidUnread() throws {
        var inner: [UInt8] = []
        let iw = ZipWriter { inner += $0 }
        try iw.add(name: "x.txt", bytes: Array("t \(Self.token)".utf8), deflate: true)
        try iw.finish()
        for (name, bytes, status) in [
            ("notes.txt.gz", try DeflateStream.gzip(Array("t \(Self.token)".utf8)), Int32(1)),
            ("attachment.dat", inner, Int32(2))
        ] {
            var out: [UInt8] = []
            let w = ZipWriter { out += $0 }
            try w.add(name: "sessions/\(Fixture.sessionId).jsonl", bytes: Self.session)
            try w.add(name: name, bytes: bytes)
            try w.finish()
            let r = Self.verify(try Self.write(out, "o.zip"))
            #expect(r.status == status, "\(name): \(r.out) \(r.err)")
            if status == 2 { #expect(r.err.contains("holds zip data, which is not read"), "\(r.err)") }
        }
    }
}
