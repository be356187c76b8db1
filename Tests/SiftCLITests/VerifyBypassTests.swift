import Foundation
import Testing
@testable import SiftCLI
import SiftCore
import SiftArchive

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One test per way around `verify`: every byte is checked, or a finding names what was not (exit 2).
/// Credentials are assembled at run time; none is a literal.
@Suite(.serialized) struct VerifyBypassTests {
    /// A GitHub-shaped token built from a seeded generator.
    static func token(_ seed: UInt64 = 11) -> String {
        let a = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var x = seed &* 6364136223846793005 &+ 1442695040888963407
        var s = ""
        for _ in 0..<36 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            s.append(a[Int((x >> 33) % UInt64(a.count))])
        }
        return "gh" + "p_" + s
    }

    struct Verdict {
        var status: Int32
        var rules: [String]
        var findings: [JSONValue]
        var err: String
    }

    /// Runs the built binary's `verify --format json` over `paths`.
    static func verify(_ args: [String]) throws -> Verdict {
        let r = try Binary.run(["verify", "--format", "json"] + args)
        let doc = try JSONDocument(string: r.out)
        let findings = doc.root["findings"]?.elements ?? []
        return Verdict(status: r.status, rules: findings.compactMap { $0["rule"]?.string }, findings: findings, err: r.err)
    }

    static func session(_ lines: [String], lastNewline: Bool = true) throws -> String {
        let dir = try makeTempDir()
        let url = dir.appendingPathComponent(Fixture.sessionId + ".jsonl")
        try Data(([Fixture.header()] + lines).joined(separator: "\n").utf8 + (lastNewline ? [0x0A] : [])).write(to: url)
        return url.path
    }

    static func json(_ s: String) -> String {
        String(decoding: JSONOut.string(s).render(pretty: false).utf8, as: UTF8.self)
    }

    // MARK: damaged lines

    @Test func damagedLinesAreScannedAsRawText() throws {
        let lines = [
            #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:03.500Z","level":"info","message":"a \#(Self.token(1))"}}"#,
            #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.600Z","level":"info","n":NaN,"message":"b \#(Self.token(2))"}"#,
            #"{"type":"log","seq":3,"ts":"2026-11-29T10:15:03.700Z","level":"info","message":"c \#(Self.token(3))"#
        ]
        let v = try Self.verify([try Self.session(lines, lastNewline: false)])
        let lineNumbers = Set(v.findings.filter { $0["rule"]?.string == "secret.github-token" }.compactMap { $0["line"]?.int })
        #expect(lineNumbers == [2, 3, 4])
        #expect(v.status == 1)
    }

    // MARK: duplicates

    @Test func duplicateArchiveEntriesAreAllScanned() throws {
        let clean = Array("{\"ok\":true}".utf8)
        let hex = SHA256.hexDigest(clean)
        let dirty = Array("{\"note\":\"\(Self.token(4))\"}".utf8)
        let blobPath = "blobs/\(hex.prefix(2))/\(hex)"
        let record =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/x","response":{"body":{"encoding":"utf8","size":11,"storedSize":11,"blob":"sha256:\#(hex)","contentType":"application/json"}}}"#
        let session = Array((Fixture.header() + "\n" + record + "\n").utf8)
        let tar = FolderOfExportsTests.tar([("sessions/\(Fixture.sessionId).jsonl", session), (blobPath, clean), (blobPath, dirty)])
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("export.tar")
        try Data(tar).write(to: path)
        let v = try Self.verify([path.path])
        #expect(v.rules.contains("secret.github-token"))
        #expect(v.findings.contains { $0["rule"]?.string == "archive.duplicate-entry" && ($0["file"]?.string ?? "") == blobPath })
    }

    @Test func duplicateJSONKeysAreAllScanned() throws {
        let bearer = "Bearer " + Self.token(5)
        let lines = [
            // A header object with two "value" members: the first is the mask.
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/x","request":{"headers":[{"name":"Authorization","value":"***","value":\#(Self.json(bearer))}]}}"#,
            // A body with two "text" members.
            #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:02.100Z","id":"rec_2","url":"https://api.example.test/y","request":{"body":{"encoding":"utf8","size":2,"text":"{}","text":\#(Self.json("{\"password\":\"hunter2x\"}")),"contentType":"application/json"}}}"#,
            // A record with two "type" members: a log first, a network record second.
            #"{"type":"log","type":"network","seq":3,"ts":"2026-11-29T10:15:02.200Z","id":"rec_3","url":"https://api.example.test/z?access_token=abc123"}"#
        ]
        let v = try Self.verify([try Self.session(lines)])
        #expect(v.findings.contains { $0["rule"]?.string == "redaction.header" && $0["line"]?.int == 2 })
        #expect(v.findings.contains { $0["rule"]?.string == "redaction.body-field" && $0["line"]?.int == 3 })
        #expect(v.findings.contains { $0["rule"]?.string == "redaction.query" && $0["line"]?.int == 4 })
        let dup = v.findings.filter { $0["rule"]?.string == "verify.duplicate-key" }
        #expect(Set(dup.compactMap { $0["line"]?.int }) == [2, 3, 4])
        #expect(dup.contains { ($0["message"]?.string ?? "").contains("'value'") })
        #expect(dup.contains { ($0["message"]?.string ?? "").contains("'type'") })
    }

    /// A large record that repeats a name many times is checked once per copy up to the budget of
    /// later copies (64 MiB a line): the copies within it are checked, the rest named as not checked
    /// (`verify.bound`, exit 2), never passed as checked.
    @Test func laterCopiesPastTheBudgetAreNamed() throws {
        let pad = String(repeating: " ", count: 9 << 20)
        // Ten copies of an Authorization header's `value`, 9 MiB a copy of the record: seven later
        // copies (copies 1 to 7) fit. Copy 3 is unmasked (checked), copy 9 too (past the budget).
        // Each masked copy is written differently (`*` or an escape of it): copies written alike are
        // checked as one.
        let values = (0..<10).map {
            "\"value\":" + ($0 == 3 ? Self.json("plain-three-\($0)") : $0 == 9 ? Self.json("plain-nine-\($0)") : Self.stars($0))
        }
        let line =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/x","pad":"\#(pad)","request":{"headers":[{"name":"Authorization",\#(values.joined(separator: ","))}]}}"#
        let v = try Self.verify([try Self.session([line])])
        let header = v.findings.filter { $0["rule"]?.string == "redaction.header" }
        #expect(header.count == 1, "\(header)")
        #expect(header.first?["preview"]?.string == SecretMask.preview("plain-three-3"))
        let dup = v.findings.filter { $0["rule"]?.string == "verify.duplicate-key" }
        #expect(
            dup.count == 1
                && (dup.first?["message"]?.string ?? "").contains("appears 10 times in one object; the first 8 copies were checked"),
            "\(dup)")
        let bound = v.findings.filter { $0["rule"]?.string == "verify.bound" }
        #expect(
            bound.count == 1 && (bound.first?["message"]?.string ?? "").contains("'value' (10 copies) past the first 8 were not checked"),
            "\(bound)")
        #expect(bound.first?["line"]?.int == 2)
        #expect(v.status == 2)
        #expect(JSONDocument.laterCopiesChecked([.init(name: "note", ranges: Array(repeating: 0..<1, count: 64))], bytes: 1 << 20) == 63)
        #expect(JSONDocument.laterCopiesChecked([.init(name: "note", ranges: Array(repeating: 0..<1, count: 100))], bytes: 100) == 63)
        #expect(JSONDocument.laterCopiesChecked([.init(name: "note", ranges: Array(repeating: 0..<1, count: 64))], bytes: 16 << 20) == 4)
    }

    /// `***` written the `j`-th way: each star as itself or as one of its two escapes.
    static func stars(_ j: Int) -> String {
        let star = ["*", "\\u002a", "\\u002A"]
        return "\"" + star[j % 3] + star[(j / 3) % 3] + star[(j / 9) % 3] + "\""
    }

    /// A name held thousands of times, each copy's value written as an earlier one's but a few: the
    /// copies written alike are checked together, so every copy is checked (a value far past the
    /// 64th copy is found) and the record is not re-read once per copy.
    @Test func copiesWrittenAlikeAreCheckedTogether() throws {
        let values = (0..<5000).map { "\"value\":" + ($0 == 4321 ? Self.json("plain-late-\($0)") : Self.json("***")) }
        let line =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/x","request":{"headers":[{"name":"Authorization",\#(values.joined(separator: ","))}]}}"#
        let v = try Self.verify([try Self.session([line])])
        let header = v.findings.filter { $0["rule"]?.string == "redaction.header" }
        #expect(header.count == 1 && header.first?["preview"]?.string == SecretMask.preview("plain-late-4321"), "\(header)")
        let dup = v.findings.filter { $0["rule"]?.string == "verify.duplicate-key" }
        #expect(
            dup.count == 1 && (dup.first?["message"]?.string ?? "").contains("appears 5000 times in one object; every copy was checked"),
            "\(dup)")
        #expect(!v.findings.contains { $0["rule"]?.string == "verify.bound" })
        #expect(v.status == 1)
    }

    /// A credential in the first copy of a repeated name is reported once, at the name the record
    /// gives it, never at the name its set-aside copy carries while the later copies are checked
    /// (`_essage`); names that start with an escape or a multi-byte character keep every copy checked.
    @Test func aSetAsideCopyIsNeverNamed() throws {
        let lines = [
            #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:02.000Z","level":"info","message":\#(Self.json("token " + Self.token(6))),"message":"fine"}"#,
            #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:02.100Z","level":"info","message":"m","extra":{"\u00e9t":\#(Self.json(Self.token(7))),"\u00e9t":"x"}}"#,
            #"{"type":"log","seq":3,"ts":"2026-11-29T10:15:02.200Z","level":"info","message":"m","extra":{"ét":"x","ét":\#(Self.json(Self.token(8)))}}"#,
            #"{"type":"log","seq":4,"ts":"2026-11-29T10:15:02.300Z","level":"info","message":"m","extra":{"\"q":"x","\"q":\#(Self.json(Self.token(9)))}}"#,
            // A second repeated name that starts with an escape once made every later-copy document
            // invalid, so the header's second `value` went unchecked.
            #"{"type":"network","seq":5,"ts":"2026-11-29T10:15:02.400Z","id":"rec_5","url":"https://api.example.test/x","request":{"headers":[{"name":"Authorization","\"alue":"1","value":"***","value":"Bearer abcdefghijklmnopqrstuv12345","\"alue":"2"}]}}"#
        ]
        let v = try Self.verify([try Self.session(lines)])
        let secrets = v.findings.filter { $0["rule"]?.string == "secret.github-token" }
        #expect(secrets.count == 4, "one per record: \(secrets.map { $0["location"]?.string ?? "" })")
        #expect(!secrets.contains { ($0["location"]?.string ?? "").contains("_") })
        #expect(Set(v.findings.filter { $0["rule"]?.string == "verify.duplicate-key" }.compactMap { $0["line"]?.int }) == [2, 3, 4, 5, 6])
        #expect(v.findings.contains { $0["rule"]?.string == "redaction.header" && $0["line"]?.int == 6 })
    }

    // MARK: limits

    /// A log record whose message is `text`.
    static func log(_ seq: Int, _ text: String) -> String {
        #"{"type":"log","seq":\#(seq),"ts":"2026-11-29T10:15:03.500Z","level":"info","message":\#(json(text))}"#
    }

    static func network(
        _ seq: Int, url: String = "https://api.example.test/x", body: String? = nil, contentType: String = "application/json",
        base64: [UInt8]? = nil
    ) -> String {
        var b = ""
        if let body {
            b =
                #","request":{"body":{"encoding":"utf8","size":\#(body.utf8.count),"text":\#(json(body)),"contentType":\#(json(contentType))}}"#
        }
        if let base64 {
            b = #","request":{"body":{"encoding":"base64","size":\#(base64.count),"data":"\#(Data(base64).base64EncodedString())"}}"#
        }
        return #"{"type":"network","seq":\#(seq),"ts":"2026-11-29T10:15:02.000Z","id":"rec_\#(seq)","url":\#(json(url))\#(b)}"#
    }

    /// A JSON document serialised into a string of a body, at any depth, has its listed names
    /// checked even when nothing in it looks like a credential (`otp` holds no detector's stem).
    @Test func listedNamesInsideAStringOfABodyAreChecked() throws {
        let inner = #"{\"otp\":\"123456\"}"#
        let lines = [
            Self.network(1, body: #"{"data":"\#(inner)"}"#),
            Self.network(2, body: #"{"a":{"b":"\#(inner)"}}"#),
            Self.network(3, body: #"[{"k":"\#(inner)"}]"#),
            Self.network(4, body: #"{"data":"  \#(inner)"}"#)
        ]
        let v = try Self.verify([try Self.session(lines)])
        let lineNumbers = Set(v.findings.filter { $0["rule"]?.string == "redaction.body-field" }.compactMap { $0["line"]?.int })
        #expect(lineNumbers == [2, 3, 4, 5])
    }

    @Test func deepJSONBodyScansOnAndSaysSo() throws {
        let deep =
            String(repeating: "[", count: 300) + "{\"password\":\"hunter2x\",\"note\":\"\(Self.token(6))\"}"
            + String(repeating: "]", count: 300)
        let v = try Self.verify([try Self.session([Self.network(1, body: deep)])])
        #expect(v.rules.contains("secret.github-token"))
        #expect(v.findings.contains { $0["rule"]?.string == "verify.bound" && ($0["message"]?.string ?? "").contains("256") })
        #expect(v.status == 2)
    }

    @Test func manyQueryParametersAndFormFieldsAndPartsScanOn() throws {
        let filler = (0..<10_050).map { "p\($0)=1" }.joined(separator: "&")
        let form = filler + "&client_secret=s3cretValue9"
        var multipart = ""
        for i in 0..<1_050 { multipart += "--BB\r\nContent-Disposition: form-data; name=\"f\(i)\"\r\n\r\nx\r\n" }
        multipart += "--BB\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2x\r\n--BB--\r\n"
        let lines = [
            Self.network(1, url: "https://api.example.test/x?" + filler + "&access_token=abc123"),
            Self.network(2, body: form, contentType: "application/x-www-form-urlencoded"),
            Self.network(3, body: multipart, contentType: "multipart/form-data; boundary=BB")
        ]
        let v = try Self.verify([try Self.session(lines)])
        #expect(v.rules.contains("redaction.query"))
        #expect(v.rules.contains("redaction.form-field"))
        #expect(v.rules.contains("redaction.multipart-field"))
        #expect(!v.rules.contains("verify.bound"))
    }

    @Test func tooManyAnchorCandidatesIsABoundAndExit2() throws {
        let noise = String(repeating: "ghp_ ", count: 5_000)
        let v = try Self.verify([try Self.session([Self.log(1, noise + Self.token(7))])])
        #expect(v.findings.contains { $0["rule"]?.string == "verify.bound" && ($0["message"]?.string ?? "").contains("4096") })
        #expect(v.status == 2)
    }

    @Test func urlUserinfoAfterALongUserOrSchemeIsFound() throws {
        let user = String(repeating: "u", count: 600)
        let scheme = String(repeating: "s", count: 40)
        let lines = [
            Self.network(1, url: "https://\(user):pw9Secret@db.example.test/x"),
            Self.network(2, url: "\(scheme)://admin:pw9Secret@db.example.test/x"),
            Self.log(3, "connect to https://\(user):pw9Secret@db.example.test now")
        ]
        let v = try Self.verify([try Self.session(lines)])
        let lines2 = Set(v.findings.filter { $0["rule"]?.string == "redaction.url-userinfo" }.compactMap { $0["line"]?.int })
        #expect(lines2 == [2, 3, 4])
    }

    @Test func sixGzipLayersAreABoundAndExit2() throws {
        var bytes = Array("{\"note\":\"\(Self.token(8))\"}".utf8)
        for _ in 0..<6 { bytes = Self.gzip(bytes) }
        let v = try Self.verify([try Self.session([Self.network(1, base64: bytes)])])
        #expect(v.findings.contains { $0["rule"]?.string == "verify.bound" && ($0["message"]?.string ?? "").contains("nested") })
        #expect(v.status == 2)
    }

    static func gzip(_ data: [UInt8]) -> [UInt8] {
        let dir = (try? makeTempDir()) ?? URL(fileURLWithPath: "/tmp")
        let f = dir.appendingPathComponent("x")
        try? Data(data).write(to: f)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c -n \"$0\" > \"$0.gz\"", f.path]
        try? p.run()
        p.waitUntilExit()
        return Array((try? Data(contentsOf: URL(fileURLWithPath: f.path + ".gz"))) ?? Data())
    }

    // MARK: names and plain fields

    @Test func namesAndPlainFieldsAreScanned() throws {
        let lines = [
            #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:03.500Z","level":"info","message":"ok","metadata":{\#(Self.json(Self.token(9))):"1"}}"#,
            #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:02.000Z","id":"rec_2","url":"https://api.example.test/x","request":{"headers":[{"name":\#(Self.json("X-" + Self.token(10))),"value":"1"}]}}"#,
            #"{"type":"log","seq":3,"ts":\#(Self.json(Self.token(12))),"level":\#(Self.json(Self.token(13))),"message":"ok"}"#,
            #"{"type":\#(Self.json(Self.token(14))),"seq":4,"ts":"2026-11-29T10:15:03.500Z"}"#,
            Self.network(5, body: "{\"\(Self.token(15))\":1}")
        ]
        let v = try Self.verify([try Self.session(lines)])
        let gh = v.findings.filter { $0["rule"]?.string == "secret.github-token" }
        #expect(Set(gh.compactMap { $0["line"]?.int }) == [2, 3, 4, 5, 6])
        #expect(gh.count >= 6)
    }

    // MARK: paths are bytes

    /// Writes `bytes` to a file whose name is `dir` + the raw name bytes.
    static func writeRaw(_ dir: URL, _ name: [UInt8], _ bytes: [UInt8]) throws {
        let path = Array(dir.path.utf8) + [0x2F] + name + [0]
        let fd = path.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        guard fd >= 0 else { throw UsageError("cannot create a test file") }
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    @Test func nonUTF8PathsOpenExactlyThatFile() throws {
        let dir = try makeTempDir()
        let dirty = Array((Fixture.header() + "\n" + Self.log(1, "x " + Self.token(16)) + "\n").utf8)
        let clean = Array((Fixture.clean.joined(separator: "\n") + "\n").utf8)
        // The real file's name holds byte 0xFF; a decoy carries the lossy spelling (U+FFFD).
        try Self.writeRaw(dir, Array("ses_a".utf8) + [0xFF] + Array(".jsonl".utf8), dirty)
        try Self.writeRaw(dir, Array("ses_a\u{FFFD}.jsonl".utf8), clean)
        guard let bin = Binary.url else { throw UsageError("pbsift binary not built") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec \"$0\" verify \"$(printf '%b' \"$1\")\"", bin.path, dir.path + "/ses_a\\0377.jsonl"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 1)
        #expect(text.contains("secret.github-token"))
        #expect(text.contains("ses_a\\xff.jsonl"))

        // Inside a folder input: an archive whose name is not UTF-8 is opened by its bytes, not the decoy.
        let folder = try makeTempDir()
        let tar = FolderOfExportsTests.tar([("sessions/\(Fixture.sessionId).jsonl", dirty)])
        try Self.writeRaw(folder, Array("e".utf8) + [0xFE] + Array(".tar".utf8), tar)
        try Self.writeRaw(folder, Array("e\u{FFFD}.tar".utf8), FolderOfExportsTests.tar([("sessions/\(Fixture.sessionId).jsonl", clean)]))
        let v = try Self.verify([folder.path])
        #expect(v.rules.contains("secret.github-token"))
        #expect(v.status == 1)
    }
}

/// Fingerprints and previews never give a guessable value back, in any output format.
@Suite(.serialized) struct FingerprintTests {
    static let otp = "48" + "2913"
    static let word = "qwhz" + "kpte"

    static func export(otp: String, word: String) throws -> String {
        let body = #"{\"otp\":\"\#(otp)\",\"password\":\"\#(word)\"}"#
        let line =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/login?code=\#(otp)","request":{"body":{"encoding":"utf8","size":10,"text":"\#(body)","contentType":"application/json"}}}"#
        let dir = try makeTempDir()
        let url = dir.appendingPathComponent(Fixture.sessionId + ".jsonl")
        try Data((Fixture.header() + "\n" + line + "\n").utf8).write(to: url)
        return url.path
    }

    /// Every run of 8+ hex digits in `text`.
    static func hexRuns(_ text: String) -> Set<String> {
        var out = Set<String>(), cur = ""
        for ch in text.lowercased() + " " {
            if ch.isHexDigit { cur.append(ch) } else { if cur.count >= 8 { out.insert(cur) }; cur = "" }
        }
        return out
    }

    @Test func noOutputLetsAGuessableValueBeRecovered() throws {
        let path = try Self.export(otp: Self.otp, word: Self.word)
        // Enumeration: the true values among candidates a brute force would try.
        var candidates = (0..<2000).map { String(format: "%06d", 481_000 + $0) }
        candidates += [Self.word, "qwhzkptf", "aaaaaaaa", "password"]
        var digests = Set<String>()
        for c in candidates {
            let h = SHA256.hexDigest(Array(c.utf8))
            for n in [8, 12, 16, 64] { digests.insert(String(h.prefix(n))) }
        }
        for format in ["text", "json", "sarif", "csv", "markdown"] {
            let r = try Binary.run(["verify", "--format", format, path])
            #expect(r.status == 1, "\(format)")
            let all = r.out + r.err
            #expect(!all.contains(Self.otp) && !all.contains(Self.word), "\(format) prints the value")
            #expect(!all.contains("(6 chars)") && !all.contains("(8 chars)"), "\(format) prints the length")
            for run in Self.hexRuns(all) {
                #expect(!digests.contains(where: { run.contains($0) }), "\(format): a fingerprint is a hash of the value")
            }
        }
        // Without a key the fingerprint names the place, not the value: another value there gets the same one.
        let other = try Self.export(otp: "11" + "1111", word: "zzzz" + "qqqq")
        let a = try VerifyBypassTests.verify([path]).findings.compactMap { $0["fingerprint"]?.string }
        let b = try VerifyBypassTests.verify([other]).findings.compactMap { $0["fingerprint"]?.string }
        #expect(!a.isEmpty && a.sorted() == b.sorted())
        #expect(a.allSatisfy { $0.hasPrefix("loc:") })
    }

    @Test func keyedFingerprintsMatchAcrossRunsWithTheBaseline() throws {
        let path = try Self.export(otp: Self.otp, word: Self.word)
        let dir = try makeTempDir()
        let base = dir.appendingPathComponent("baseline.json").path
        let w = try Binary.run(["verify", "--write-baseline", base, path])
        #expect(w.status == 0)
        #expect(w.err.contains("wrote") && w.err.contains("fingerprint key"))
        let text = try String(contentsOfFile: base, encoding: .utf8)
        #expect(text.contains("hmac:") && !text.contains(Self.otp) && !text.contains(Self.word))
        // The key stays beside the baseline; a second run matches every finding.
        let r = try Binary.run(["verify", "--baseline", base, path])
        #expect(r.status == 0)
        // Another key, another fingerprint: without the key a guess cannot be checked.
        let dir2 = try makeTempDir()
        let base2 = dir2.appendingPathComponent("baseline.json").path
        _ = try Binary.run(["verify", "--write-baseline", base2, path])
        let text2 = try String(contentsOfFile: base2, encoding: .utf8)
        #expect(VerifyBypassTests.hmacs(text) != VerifyBypassTests.hmacs(text2))
    }
}

extension VerifyBypassTests {
    static func hmacs(_ text: String) -> Set<String> {
        Set(text.components(separatedBy: "\"").filter { $0.hasPrefix("hmac:") })
    }
}
