import Foundation
import SiftArchive
import SiftCore
import Testing

@testable import SiftCLI

/// What a container carries beside an entry's bytes is checked like a file's text: gzip header
/// fields (at the input and inside an archive), tar pax records and owner names, zip extra fields.
@Suite struct ContainerTextTests {
    static let session = Array((Fixture.clean.joined(separator: "\n") + "\n").utf8)
    static var entryName: String { "sessions/\(Fixture.sessionId).jsonl" }
    /// An AWS key id (20 bytes: it fits a tar header's 32-byte owner name), assembled here.
    static let awsKey = "AK" + "IA" + "Q3EGRIXVD4NWA5TZ"

    /// `data` gzip'd, with `flag` (FEXTRA 0x04, FNAME 0x08, FCOMMENT 0x10) set and its field holding `text`.
    static func gzip(_ data: [UInt8], flag: UInt8, text: String) throws -> [UInt8] {
        var gz = try DeflateStream.gzip(data)
        #expect(gz[3] == 0, "a plain header to splice into")
        gz[3] = flag
        let t = Array(text.utf8)
        let field: [UInt8] = flag == 0x04 ? [UInt8(t.count & 0xFF), UInt8(t.count >> 8)] + t : t + [0]
        gz.insert(contentsOf: field, at: 10)
        return gz
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = try makeTempDir().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func verify(_ path: String) -> (status: Int32, out: String) {
        let r = runCLI(["verify", path, "--format", "json"])
        return (r.status, r.out)
    }

    @Test(arguments: [(UInt8(0x10), "gzip header comment"), (0x08, "gzip header file name"), (0x04, "gzip header extra field")])
    func gzipHeaderFieldsOfTheInputAreChecked(_ c: (flag: UInt8, label: String)) throws {
        let path = try Self.write(try Self.gzip(Self.session, flag: c.flag, text: "key " + Self.awsKey), "s.jsonl.gz")
        let v = Self.verify(path)
        #expect(v.status == 1 && v.out.contains("secret.aws-access-key") && v.out.contains(c.label), "\(v.out)")
    }

    @Test func aGzipBodysHeaderIsChecked() throws {
        let body = try Self.gzip(Array(#"{"ok":true}"#.utf8), flag: 0x08, text: Self.awsKey + ".json")
        let v = Self.verify(try VerifyBypassTests.session([VerifyBypassTests.network(1, base64: body)]))
        #expect(v.status == 1 && v.out.contains("secret.aws-access-key") && v.out.contains("gzip header file name"), "\(v.out)")
    }

    /// A ustar block (`type` "0" a file, "x" a pax header) with `uname` as the owner name.
    static func block(_ name: String, type: Character, _ data: [UInt8], uname: String = "") -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 512)
        func put(_ s: String, _ at: Int) { for (i, b) in s.utf8.enumerated() { h[at + i] = b } }
        put(name, 0)
        put("0000644", 100)
        put("0000000", 108)
        put("0000000", 116)
        put(String(format: "%011o", data.count), 124)
        put(String(format: "%011o", 0), 136)
        put("        ", 148)
        h[156] = UInt8(String(type).utf8.first!)
        put("ustar", 257)
        put("00", 263)
        put(uname, 265)
        let sum = h.reduce(0) { $0 + Int($1) }
        put(String(format: "%06o", sum), 148)
        h[154] = 0
        h[155] = 0x20
        return h + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
    }

    static func paxRecord(_ key: String, _ value: String) -> [UInt8] {
        let body = " \(key)=\(value)\n"
        var n = body.utf8.count + 1
        while String(n).utf8.count + body.utf8.count != n { n += 1 }
        return Array("\(n)\(body)".utf8)
    }

    @Test func tarPaxRecordsAndOwnerNamesAreChecked() throws {
        let pax = Self.block("PaxHeaders/x", type: "x", Self.paxRecord("comment", "rotate " + Self.awsKey))
        let tar = pax + Self.block(Self.entryName, type: "0", Self.session) + [UInt8](repeating: 0, count: 1024)
        let v = Self.verify(try Self.write(tar, "p.tar"))
        #expect(v.status == 1 && v.out.contains("tar pax record 'comment'"), "\(v.out)")
        let owned = Self.block(Self.entryName, type: "0", Self.session, uname: Self.awsKey) + [UInt8](repeating: 0, count: 1024)
        let w = Self.verify(try Self.write(owned, "u.tar"))
        #expect(w.status == 1 && w.out.contains("tar header owner name"), "\(w.out)")
    }

    @Test func aGzipHeaderInsideAnArchiveIsChecked() throws {
        let inner = try Self.gzip(Self.session, flag: 0x10, text: Self.awsKey)
        let tar = Self.block(Self.entryName + ".gz", type: "0", inner) + [UInt8](repeating: 0, count: 1024)
        let v = Self.verify(try Self.write(tar, "g.tar"))
        #expect(v.status == 1 && v.out.contains("secret.aws-access-key") && v.out.contains("gzip header comment"), "\(v.out)")
    }

    /// One stored zip member whose central and local extra fields hold `extra`.
    static func zip(_ name: String, _ data: [UInt8], extra: [UInt8]) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        var crc = CRC32()
        data.withUnsafeBytes { crc.update($0) }
        let n = Array(name.utf8)
        let common = u16(20) + u16(0) + u16(0) + u16(0) + u16(0) + u32(crc.value) + u32(UInt32(data.count)) + u32(UInt32(data.count))
        let local = u32(0x0403_4B50) + common + u16(n.count) + u16(extra.count) + n + extra + data
        let central =
            u32(0x0201_4B50) + u16(20) + common + u16(n.count) + u16(extra.count) + u16(0) + u16(0) + u16(0) + u32(0) + u32(0) + n
            + extra
        let end =
            u32(0x0605_4B50) + u16(0) + u16(0) + u16(1) + u16(1) + u32(UInt32(central.count)) + u32(UInt32(local.count)) + u16(0)
        return local + central + end
    }

    @Test func zipExtraFieldsAreChecked() throws {
        let text = Array(("note " + Self.awsKey).utf8)
        let extra: [UInt8] = [0xFE, 0xCA, UInt8(text.count), 0] + text
        let v = Self.verify(try Self.write(Self.zip(Self.entryName, Self.session, extra: extra), "e.zip"))
        #expect(v.status == 1 && v.out.contains("zip extra field") && v.out.contains("secret.aws-access-key"), "\(v.out)")
        // The same archive without the extra field is clean.
        let clean = Self.verify(try Self.write(Self.zip(Self.entryName, Self.session, extra: []), "c.zip"))
        #expect(clean.status == 0, "\(clean.out)")
    }
}

/// A record that is not strict JSON only because of a number is still read field by field: its
/// contract fields are checked by name.
@Suite struct TolerantRecordTests {
    static let plain = "Plain" + "Cred" + "0001zQxy"

    @Test(arguments: ["NaN", "Infinity", "-Infinity", "007", "+1", "0x1F", ".5", "1."])
    func contractFieldsOfANearlyJSONRecordAreChecked(_ number: String) throws {
        let line =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.200Z","id":"rec_1","method":"GET","url":"https://api.example.test/x","statusCode":200,"duration":\#(number),"request":{"headers":[{"name":"Authorization","value":"\#(Self.plain)"}]}}"#
        let v = ContainerTextTests.verify(try VerifyBypassTests.session([line]))
        #expect(v.status == 1 && v.out.contains("redaction.header"), "\(number): \(v.out)")
        #expect(!v.out.contains(Self.plain))
    }

    @Test func theRepairKeepsStringsAndStrictTokens() {
        let line = Array(#"{"a":"NaN 007","b":[1,-0.5e3,true,null,NaN],"c":0x1F}"#.utf8)
        let repaired = TolerantNumbers.repair(line).map { String(decoding: $0, as: UTF8.self) }
        #expect(repaired == #"{"a":"NaN 007","b":[1,-0.5e3,true,null,null],"c":null}"#)
        #expect(TolerantNumbers.repair(Array(#"{"a":1}"#.utf8)) == nil)
    }
}

/// Bodies and files compressed or encoded some other way than gzip and UTF-8 are decoded and
/// checked, or named as not checked (exit status 2).
@Suite struct OtherEncodingsTests {
    static let token = VerifyBypassTests.token(21)
    static var json: [UInt8] { Array(#"{"k":"\#(token)"}"#.utf8) }

    static func zlib(_ data: [UInt8]) throws -> [UInt8] {
        var a: UInt32 = 1, b: UInt32 = 0
        for c in data {
            a = (a + UInt32(c)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        return [0x78, 0x9C] + (try ZipWriter.rawDeflate(data)) + [
            UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)
        ]
    }

    static func utf16(_ s: String, little: Bool, mark: Bool) -> [UInt8] {
        var out: [UInt8] = mark ? (little ? [0xFF, 0xFE] : [0xFE, 0xFF]) : []
        for u in s.utf16 { out += little ? [UInt8(u & 0xFF), UInt8(u >> 8)] : [UInt8(u >> 8), UInt8(u & 0xFF)] }
        return out
    }

    static func verifyBody(_ body: [UInt8]) throws -> (status: Int32, out: String) {
        ContainerTextTests.verify(try VerifyBypassTests.session([VerifyBypassTests.network(1, base64: body)]))
    }

    @Test func zlibRawDeflateAndUTF16BodiesAreRead() throws {
        let text = String(decoding: Self.json, as: UTF8.self)
        let bodies: [(String, [UInt8])] = [
            ("zlib", try Self.zlib(Self.json)), ("raw deflate", try ZipWriter.rawDeflate(Self.json)),
            ("utf-16le", Self.utf16(text, little: true, mark: false)), ("utf-16be", Self.utf16(text, little: false, mark: false)),
            ("utf-16 with a mark", Self.utf16(text, little: true, mark: true))
        ]
        for (what, body) in bodies {
            let v = try Self.verifyBody(body)
            #expect(v.status == 1 && v.out.contains("secret.github-token"), "\(what): \(v.out)")
        }
    }

    @Test(arguments: [
        ("xz", [UInt8]([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00])), ("zstd", [0x28, 0xB5, 0x2F, 0xFD]), ("bzip2", [0x42, 0x5A, 0x68, 0x39])
    ])
    func aBodyInACompressionNotReadIsSaid(_ c: (String, [UInt8])) throws {
        let v = try Self.verifyBody(c.1 + [UInt8](repeating: 0x41, count: 64))
        #expect(v.status == 2 && v.out.contains("verify.bound") && v.out.contains(c.0), "\(v.out)")
    }

    @Test func aPercentEncodedValueInAJSONBodyIsDecoded() throws {
        let encoded = Self.token.utf8.map { String(format: "%%%02X", $0) }.joined()
        let line = VerifyBypassTests.network(1, body: #"{"k":"\#(encoded)"}"#)
        let v = ContainerTextTests.verify(try VerifyBypassTests.session([line]))
        #expect(v.status == 1 && v.out.contains("secret.github-token"), "\(v.out)")
    }

    @Test func aZlibFileIsReadAndAnLzmaFileIsSaid() throws {
        let root = try makeTempDir().appendingPathComponent("export")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sessions"), withIntermediateDirectories: true)
        try Data((Fixture.clean.joined(separator: "\n") + "\n").utf8).write(
            to: root.appendingPathComponent("sessions/\(Fixture.sessionId).jsonl"))
        try Data(try Self.zlib(Array("note \(Self.token)\n".utf8))).write(to: root.appendingPathComponent("notes.bin"))
        let v = ContainerTextTests.verify(root.path)
        #expect(v.status == 1 && v.out.contains("secret.github-token") && v.out.contains("notes.bin"), "\(v.out)")
        try Data([0x5D, 0, 0, 0x80, 0] + [UInt8](repeating: 0xFF, count: 32)).write(to: root.appendingPathComponent("notes.lzma"))
        let w = ContainerTextTests.verify(root.path)
        #expect(w.status == 2 && w.out.contains("lzma"), "\(w.out)")
    }

    @Test func aRawDeflateFileIsRead() throws {
        let root = try makeTempDir().appendingPathComponent("export")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sessions"), withIntermediateDirectories: true)
        try Data((Fixture.clean.joined(separator: "\n") + "\n").utf8).write(
            to: root.appendingPathComponent("sessions/\(Fixture.sessionId).jsonl"))
        let text = Array(String(repeating: "note \(Self.token)\n", count: 3).utf8)
        try Data(try ZipWriter.rawDeflate(text)).write(to: root.appendingPathComponent("notes.bin"))
        let v = ContainerTextTests.verify(root.path)
        #expect(v.status == 1 && v.out.contains("secret.github-token") && v.out.contains("notes.bin"), "\(v.out)")
    }
}

/// HTTP/2 pseudo-headers carry the URL: `:authority` userinfo and `:path`'s query are checked as
/// the URL's; matrix parameters (`;access_token=`) as query parameters.
@Suite struct PseudoHeaderTests {
    static let plain = "Plain" + "Cred" + "0003zQxy"

    @Test func pseudoHeadersAndMatrixParametersAreCheckedAsTheURL() throws {
        let line =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.200Z","id":"rec_1","method":"GET","url":"https://api.example.test/v1/x;access_token=\#(Self.plain)/y","statusCode":200,"request":{"headers":[{"name":":authority","value":"admin:\#(Self.plain)9@api.example.test"},{"name":":path","value":"/v1/items?token=\#(Self.plain)8"}]}}"#
        let v = ContainerTextTests.verify(try VerifyBypassTests.session([line]))
        #expect(v.status == 1, "\(v.out)")
        #expect(v.out.contains(#""location" : "request.url ;access_token""#) || v.out.contains("request.url ;access_token"), "\(v.out)")
        #expect(v.out.contains("redaction.url-userinfo") && v.out.contains("request.headers[:path] ?token"), "\(v.out)")
        #expect(!v.out.contains(Self.plain))
    }
}
