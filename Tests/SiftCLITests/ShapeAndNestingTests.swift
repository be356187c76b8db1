import Foundation
import SiftArchive
import SiftCore
import SiftTestSupport
import Testing

/// A HAR of any shape, encodings nested to their bound, multipart in every spelling, and what a
/// record not checked in full prints: each a way around verify or around the masking, closed.
@Suite struct HARShapeTests {
    static let token = VerifyBypassTests.token(31)

    typealias Obj = [String: Any]

    static func entry(_ change: (inout Obj) -> Void = { _ in }) -> Obj {
        var e = HARFixture.entry(url: "https://api.example.test/v1/x")
        change(&e)
        return e
    }

    static func har(_ entries: [Any]) -> Obj {
        ["log": ["version": "1.2", "creator": ["name": "t", "version": "1"], "entries": entries] as Obj]
    }

    static func write(_ bytes: [UInt8]) throws -> String {
        let url = try makeTempDir().appendingPathComponent("capture.har")
        try Data(bytes).write(to: url)
        return url.path
    }

    static func bytes(_ o: Any) throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])) }

    static func found(_ path: String) -> Bool {
        let v = ContainerTextTests.verify(path)
        return v.status == 1 && v.out.contains("secret.github-token")
    }

    @Test func aMemberOfAnyShapeIsRead() throws {
        let shapes: [(String, Obj)] = [
            (
                "headers as an object",
                Self.entry { e in
                    var r = e["request"] as? Obj ?? [:]
                    r["headers"] = ["X-Note": "token " + Self.token]
                    e["request"] = r
                }
            ),
            ("request as a string", Self.entry { e in e["request"] = "GET /x?t=" + Self.token }),
            ("a member of another name", Self.entry { e in e["extra"] = ["deep": ["note": Self.token]] }),
            (
                "a request member of another name",
                Self.entry { e in
                    var r = e["request"] as? Obj ?? [:]
                    r["notes"] = Self.token
                    e["request"] = r
                }
            )
        ]
        for (what, e) in shapes {
            #expect(Self.found(try Self.write(try Self.bytes(Self.har([e])))), "\(what)")
        }
    }

    @Test func anEntryThatIsNotAnObjectIsReadAsText() throws {
        let inner = Self.entry { e in
            e["request"] = ["method": "GET", "url": "https://x.test/", "headers": [["name": "X", "value": Self.token]]]
        }
        let v = ContainerTextTests.verify(try Self.write(try Self.bytes(Self.har([[inner]]))))
        #expect(v.out.contains("secret.github-token"), "\(v.out)")
        #expect(v.status != 0)
    }

    @Test func theMiddleHopsOfOneRecordIdAreRead() throws {
        // Eight entries share a `_recordId`: one record, whose other hops' headers are read too.
        var entries: [Obj] = []
        for i in 0..<8 {
            entries.append(
                Self.entry { e in
                    var r = e["request"] as? Obj ?? [:]
                    r["headers"] = [["name": "X-Key", "value": VerifyBypassTests.token(UInt64(40 + i))]]
                    e["request"] = r
                    e["_recordId"] = "rec_1"
                })
        }
        let v = try VerifyBypassTests.verify([try Self.write(try Self.bytes(Self.har(entries)))])
        #expect(v.status == 1)
        #expect(v.rules.filter { $0 == "secret.github-token" }.count == 8, "\(v.rules)")
    }

    @Test func whatFollowsTheDocumentIsRead() throws {
        let clean = try Self.bytes(Self.har([Self.entry()]))
        let second = try Self.bytes(Self.har([Self.entry { e in e["comment"] = Self.token }]))
        let cases: [(String, [UInt8])] = [
            ("a second HAR", clean + [0x0A] + second),
            ("NUL, then JSON", clean + [0x00] + Array(#"{"k":"\#(Self.token)"}"#.utf8)),
            ("text", clean + Array("\ntrailing note \(Self.token)\n".utf8))
        ]
        for (what, bytes) in cases {
            let v = ContainerTextTests.verify(try Self.write(bytes))
            #expect(v.status == 1 && v.out.contains("secret.github-token"), "\(what): \(v.out)")
            #expect(v.out.contains("integrity.malformed-line") || v.out.contains("secret.github-token"), "\(what)")
        }
        let inspect = runCLI(["inspect", try Self.write(cases[0].1)])
        #expect(inspect.out.contains("another JSON document starts after the HAR's end"), "\(inspect.out)")
    }

    @Test func aCleanHARHandsNothingOver() throws {
        // The record carries every field of a well-formed entry: nothing is read twice, nothing reported.
        let path = try HARFixture.write(HARFixture.chrome)
        let v = ContainerTextTests.verify(path)
        #expect(!v.out.contains("read as text"), "\(v.out)")
    }
}

@Suite struct NestedEncodingTests {
    static let token = VerifyBypassTests.token(32)

    static func header(_ value: String) throws -> String {
        let line =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/x","request":{"headers":[{"name":"X-Blob","value":\#(VerifyBypassTests.json(value))}]}}"#
        return try VerifyBypassTests.session([line])
    }

    static func base64(_ b: [UInt8], times: Int) -> String {
        var out = b
        for _ in 0..<times { out = Array(Data(out).base64EncodedString().utf8) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func base64IsFollowedFourDeepAndDeeperIsABound() throws {
        for n in 1...4 {
            let v = ContainerTextTests.verify(try Self.header(Self.base64(Array("key=\(Self.token)".utf8), times: n)))
            #expect(v.status == 1 && v.out.contains("secret.github-token"), "\(n) deep: \(v.out)")
        }
        let v = ContainerTextTests.verify(try Self.header(Self.base64(Array("key=\(Self.token)".utf8), times: 6)))
        #expect(v.status == 2 && v.out.contains("verify.bound") && v.out.contains("encoded more than"), "\(v.out)")
    }

    @Test func base64OfBinaryOrGzipHoldingATokenIsRead() throws {
        var g = SeededGenerator(seed: 9)
        let noise = (0..<48).map { _ in UInt8.random(in: 0...255, using: &g) }
        let binary = noise + [0] + Array(Self.token.utf8) + [1] + noise
        let gz = try DeflateStream.gzip(Array("token \(Self.token)".utf8))
        for (what, bytes) in [("binary", binary), ("gzip", gz)] {
            let v = ContainerTextTests.verify(try Self.header(Self.base64(bytes, times: 1)))
            #expect(v.status == 1 && v.out.contains("secret.github-token"), "\(what): \(v.out)")
        }
    }

    @Test func jsonInJSONNamesAreCheckedEightDeepAndDeeperIsABound() throws {
        func nested(_ levels: Int) -> String {
            var v = #"{"password":"hunter2hunter2x"}"#
            for _ in 0..<levels { v = #"{"inner":\#(VerifyBypassTests.json(v))}"# }
            return v
        }
        let five = ContainerTextTests.verify(try VerifyBypassTests.session([VerifyBypassTests.network(1, body: nested(5))]))
        #expect(five.status == 1 && five.out.contains("redaction.body-field"), "\(five.out)")
        let ten = ContainerTextTests.verify(try VerifyBypassTests.session([VerifyBypassTests.network(1, body: nested(10))]))
        #expect(ten.status == 2 && ten.out.contains("JSON written inside JSON"), "\(ten.out)")
    }
}

@Suite struct MultipartSpellingTests {
    static func verify(_ part: String, contentType: String = "multipart/form-data; boundary=XyZ") throws -> (status: Int32, out: String) {
        let body = "--XyZ\r\n" + part + "\r\n\r\nhunter2hunter2x\r\n--XyZ--\r\n"
        return ContainerTextTests.verify(
            try VerifyBypassTests.session([VerifyBypassTests.network(1, body: body, contentType: contentType)]))
    }

    @Test(arguments: [
        "Content-Disposition: form-data; name*=UTF-8''password",
        "Content-Disposition: form-data; name*=utf-8'en'pass%77ord",
        "Content-Disposition: form-data; name*0=pass; name*1*=wo%72d",
        "Content-Disposition: form-data;\r\n name=\"password\"",
        "Content-Disposition: form-data; filename=\"a.txt\"; name=\"password\""
    ])
    func aListedPartNameIsReadInEverySpelling(_ header: String) throws {
        let v = try Self.verify(header)
        #expect(v.status == 1 && v.out.contains("redaction.multipart-field"), "\(header): \(v.out)")
    }

    @Test func multipartBytesUnderAnotherTypeAreReadAsMultipart() throws {
        let v = try Self.verify("Content-Disposition: form-data; name=\"password\"", contentType: "text/plain")
        #expect(v.status == 1 && v.out.contains("redaction.multipart-field"), "\(v.out)")
    }

    @Test func aFilenameIsNotAName() throws {
        let v = try Self.verify("Content-Disposition: form-data; name=\"upload\"; filename=\"password\"")
        #expect(!v.out.contains("redaction.multipart-field"), "\(v.out)")
    }
}

@Suite struct UncheckedRecordTests {
    static let token = VerifyBypassTests.token(33)

    /// A record holding `type` twice, and a log whose message reaches the anchor bound before its token.
    static func export() throws -> String {
        let dup =
            #"{"type":"log","type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/x","request":{"headers":[{"name":"Cookie","value":"sid=Qm3Wn8Rk2Lp7Xt5Zv9Bc4Hd6Jf1Gs0Ye"}]}}"#
        let decoys = Array(repeating: "gh" + "p_", count: 4200).joined(separator: " ") + " " + token
        let log = #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.000Z","level":"info","message":\#(VerifyBypassTests.json(decoys))}"#
        return try VerifyBypassTests.session([dup, log])
    }

    @Test(arguments: [["records"], ["records", "--format", "csv"], ["har"], ["show", "--seq", "1"], ["show", "--seq", "2"]])
    func aRecordNotCheckedInFullPrintsNoValue(_ command: [String]) throws {
        let path = try Self.export()
        let r = runCLI(command + [path])
        for secret in [Self.token, "Qm3Wn8Rk2Lp7Xt5Zv9Bc4Hd6Jf1Gs0Ye"] {
            #expect(!r.out.contains(secret) && !r.err.contains(secret), "\(command)")
        }
        if command == ["records"] { #expect(r.out.contains("not checked in full"), "\(r.out)") }
    }
}

@Suite struct ScrubPartsTests {
    @Test func theTokenOfAFlaggedHeaderIsReplacedWhereverItStands() throws {
        let bearer = "Zk9Lq2Wm8Rt5" + "Yx3Vb7Nc1Pd4Hg6Js0Ea"
        let sid = "Qm3Wn8Rk2Lp7" + "Xt5Zv9Bc4Hd6Jf1Gs0Ye"
        let net =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","url":"https://api.example.test/x","request":{"headers":[{"name":"Authorization","value":"Bearer \#(bearer)"},{"name":"Cookie","value":"sid=\#(sid)"}]}}"#
        let log =
            #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.000Z","level":"info","message":"retry with \#(bearer), cookie \#(sid)"}"#
        let path = try VerifyBypassTests.session([net, log])
        let out = try makeTempDir().appendingPathComponent("copy").path
        let r = runCLI(["scrub", URL(fileURLWithPath: path).deletingLastPathComponent().path, "-o", out, "-q"])
        #expect(r.status == 0, "\(r.err)")
        let copy = try String(contentsOfFile: out + "/" + Fixture.sessionId + ".jsonl", encoding: .utf8)
        #expect(!copy.contains(bearer) && !copy.contains(sid), "\(copy)")
    }
}
