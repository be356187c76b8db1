import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// Bytes a bound kept from the checks are named in a finding (the command turns it into exit 2).
@Suite struct BoundTests {
    @Test func blobBytesPastTheReadBoundAreAFinding() {
        let a = VerifyAnalysis(config: VerifyConfig(), parallel: false)
        let kept = Array("{\"ok\":true}".utf8)
        a.blob(
            BlobContent(
                input: "export", root: "", file: "blobs/ab/abcd", name: "abcd", bytes: kept,
                size: Int64(17 << 20), complete: false, sha256: "00"))
        let f = a.finish()
        #expect(f.map(\.rule) == [VerifyRule.bound.rawValue])
        #expect(f.first?.message.contains("\(kept.count) of the blob's \(17 << 20) bytes") == true)
    }
}
