import CZlib
import Foundation
import Testing
@testable import SiftArchive
@testable import SiftCore
@testable import SiftVerify

/// A gzip member holding `data`, built at run time with zlib.
func gzipBytes(_ data: [UInt8]) -> [UInt8] {
    let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    strm.initialize(to: z_stream())
    defer { deflateEnd(strm); strm.deallocate() }
    precondition(pbsift_deflateInit2(strm, 6, 31) == Z_OK) // 31: gzip wrapper
    var out = [UInt8](repeating: 0, count: Int(deflateBound(strm, uLong(data.count))) + 64)
    var input = data
    let produced = input.withUnsafeMutableBytes { inp in
        out.withUnsafeMutableBytes { outp in
            strm.pointee.next_in = inp.baseAddress?.assumingMemoryBound(to: Bytef.self)
            strm.pointee.avail_in = uInt(inp.count)
            strm.pointee.next_out = outp.baseAddress!.assumingMemoryBound(to: Bytef.self)
            strm.pointee.avail_out = uInt(outp.count)
            precondition(CZlib.deflate(strm, Z_FINISH) == Z_STREAM_END)
            return outp.count - Int(strm.pointee.avail_out)
        }
    }
    return Array(out[..<produced])
}

@Suite struct GzipBodyTests {
    static let token = "ghp_" + Fake.s(36, Fake.alnum, seed: 15)

    @Test func gzipBase64BodyIsInflatedAndScanned() throws {
        let json = Array(#"{"refresh_token":"abc123","note":"\#(GzipBodyTests.token)"}"#.utf8)
        let gz = gzipBytes(json)
        #expect(gz.prefix(2) == [0x1F, 0x8B])
        let f = try Harness.run([Harness.network(requestBody: Harness.base64Body(gz, "application/octet-stream"))])
        #expect(
            f.map { "\($0.rule) @ \($0.location ?? "")" } == [
                "redaction.body-field @ request.body $.refresh_token",
                "secret.github-token @ request.body $.note"
            ])
    }

    @Test func gzipBlobIsInflatedAndScanned() throws {
        let gz = gzipBytes(Array(("token=" + GzipBodyTests.token + "&password=" + "hunter" + "2").utf8))
        let hex = SHA256.hexDigest(gz)
        let f = try Harness.run([Harness.network(responseBody: Harness.blobBody(gz))], blobs: [gz])
        #expect(
            Set(f.map { "\($0.rule) @ \($0.location ?? "")" }) == [
                "redaction.form-field @ blob sha256:\(hex) form:token",
                "redaction.form-field @ blob sha256:\(hex) form:password"
            ])
    }

    @Test func gzipBombIsBounded() throws {
        // 64 MiB of spaces then a token: inflation stops at the bound, and the bound is a finding (not verified in full).
        var big = [UInt8](repeating: 0x20, count: 64 << 20)
        big += Array(GzipBodyTests.token.utf8)
        let gz = gzipBytes(big)
        let start = Date()
        let f = try Harness.run([Harness.network(requestBody: Harness.base64Body(gz))])
        #expect(f.map(\.rule) == ["verify.bound"])
        #expect(f.first?.message.contains("16 MiB") == true)
        #expect(Date().timeIntervalSince(start) < 30)
    }

    @Test func cutGzipKeepsWhatInflated() throws {
        let json = Array((#"{"note":"\#(GzipBodyTests.token)","pad":""# + Fake.s(20000, Fake.alnum, seed: 99) + #""}"#).utf8)
        let gz = gzipBytes(json)
        let cut = Array(gz.prefix(gz.count / 2))
        let f = try Harness.run([Harness.network(requestBody: Harness.base64Body(cut))])
        #expect(f.map(\.rule) == ["secret.github-token"])
    }
}
