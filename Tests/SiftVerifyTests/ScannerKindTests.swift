import Foundation
import SiftCore
import Testing

@testable import SiftVerify

/// One entry point per kind of input (`Scan/`), each called on a scanner made from the default
/// configuration: what it reports, where, and where it stops.
@Suite struct ScannerKindTests {
    static let token = "gh" + "p_" + String(repeating: "a1B2c3", count: 6)
    static let plain = "Plain" + "Cred" + "0005zQxy"

    static func scanner() -> ContentScanner { ContentScanner(config: VerifyConfig()) }

    static func doc(_ text: String) throws -> JSONDocument { try JSONDocument(string: text) }

    @Test func headerScanReportsAListedHeaderAtItsName() throws {
        let s = Self.scanner()
        let d = try Self.doc(#"[{"name":"Authorization","value":"Bearer \#(Self.plain)"},{"name":"Accept","value":"*/*"}]"#)
        s.headers(d.root, side: "request")
        #expect(s.hits.map(\.rule) == [VerifyRule.header.id])
        #expect(s.hits.first?.location == "request.headers[Authorization]")
        // Masked as the SDK masks it: nothing.
        let masked = Self.scanner()
        masked.headers(try Self.doc(#"[{"name":"Authorization","value":"***"}]"#).root, side: "request")
        #expect(masked.hits.isEmpty)
    }

    @Test func urlScanFindsUserinfoAndListedQueryAndMatrixParameters() throws {
        let s = Self.scanner()
        Array("https://u:\(Self.plain)@h.example/x;access_token=\(Self.plain)1?token=\(Self.plain)2&q=1".utf8).withUnsafeBufferPointer {
            s.url($0, location: "request.url", queryRule: VerifyRule.query.id)
        }
        let rules = Set(s.hits.map(\.rule))
        #expect(rules.contains(VerifyRule.urlUserinfo.id) && rules.contains(VerifyRule.query.id))
        #expect(s.hits.filter { $0.rule == VerifyRule.query.id }.count == 2)
        let masked = Self.scanner()
        Array("https://h.example/x?token=***".utf8).withUnsafeBufferPointer {
            masked.url($0, location: "request.url", queryRule: VerifyRule.query.id)
        }
        #expect(masked.hits.isEmpty)
    }

    @Test func bodyDecodeFollowsEncodingsToTheBoundAndSaysSo() throws {
        var bytes = Array(#"{"k":"\#(Self.token)"}"#.utf8)
        for _ in 0..<4 { bytes = try DeflateStreamShim.gzip(bytes) }
        let s = Self.scanner()
        bytes.withUnsafeBufferPointer { s.content($0, contentType: nil, location: "request.body", depth: 0) }
        #expect(s.hits.contains { $0.rule.id == "secret.github-token" })
        // One layer more than the bound: the innermost bytes are a bound, not a pass.
        var deeper = bytes
        for _ in 0..<2 { deeper = try DeflateStreamShim.gzip(deeper) }
        let t = Self.scanner()
        deeper.withUnsafeBufferPointer { t.content($0, contentType: nil, location: "request.body", depth: 0) }
        #expect(t.hits.contains { $0.bound })
    }

    @Test func jsonTextScanChecksListedNamesAndStopsTrackingAtItsDepth() throws {
        let s = Self.scanner()
        Array(#"{"a":{"password":"\#(Self.plain)"}}"#.utf8).withUnsafeBufferPointer { s.jsonText($0, location: "request.body") }
        #expect(s.hits.map(\.rule) == [VerifyRule.bodyField.id])
        #expect(s.hits.first?.location == "request.body $.a.password")
        let deep = String(repeating: "[", count: 257) + "1" + String(repeating: "]", count: 257)
        let t = Self.scanner()
        Array(deep.utf8).withUnsafeBufferPointer { t.jsonText($0, location: "request.body") }
        #expect(t.hits.contains { $0.bound })
    }

    @Test func recordWalkReportsAListedMetadataKeyAtItsPath() throws {
        let s = Self.scanner()
        let d = try Self.doc(#"{"user":{"api_key":"\#(Self.plain)"}}"#)
        var loc = Loc("log.metadata", jsonPath: true)
        s.walk(d.root, &loc, names: s.bodyNames, rule: VerifyRule.metadataField.id, what: "log metadata key", listed: false, hints: [])
        #expect(s.hits.map(\.rule) == [VerifyRule.metadataField.id])
        #expect(s.hits.first?.location.hasPrefix("log.metadata") == true)
    }

    @Test func theNameCacheAgreesWithAFreshComputation() {
        let s = Self.scanner()
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.".utf8)
        for k in 0..<10_000 {
            // Random names, and names from a few letters so that slots collide.
            let n = k % 2 == 0 ? Int.random(in: 1...40, using: &rng) : Int.random(in: 1...3, using: &rng)
            let name = (0..<n).map { _ in alphabet[Int.random(in: 0..<(k % 2 == 0 ? alphabet.count : 4), using: &rng)] }
            name.withUnsafeBufferPointer { b in
                #expect(s.nameFacts(b).rawValue == s.computeNameFacts(b).rawValue, "\(String(decoding: name, as: UTF8.self))")
            }
        }
    }
}

/// Gzip for the tests of this module (the archive layer's writer).
enum DeflateStreamShim {
    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbsift-shim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("x")
        try Data(bytes).write(to: f)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c -n \"$0\" > \"$0.gz\"", f.path]
        try p.run()
        p.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: f.path + ".gz")))
    }
}
