import Testing
@testable import SiftCorrelate

/// The word-at-a-time UUID parser agrees with the digit-at-a-time one on every byte at every place.
@Suite struct RequestIDParseTests {
    static func parse(_ bytes: [UInt8]) -> (RequestID?, RequestID?) {
        bytes.withUnsafeBufferPointer { b in
            (RequestID.parseUUID(b.baseAddress!), RequestID.parseUUIDBytewise(b.baseAddress!))
        }
    }

    @Test func wordAndBytewiseAgree() {
        let base = Array("0a1B2c3D-4e5F-6789-AbCd-eF0123456789".utf8)
        let (fast, slow) = RequestIDParseTests.parse(base)
        #expect(fast != nil && fast == slow)
        #expect(fast?.description == "req_0a1b2c3d-4e5f-6789-abcd-ef0123456789")
        for at in 0..<36 {
            for byte in 0...255 {
                var b = base
                b[at] = UInt8(byte)
                let (f, s) = RequestIDParseTests.parse(b)
                #expect(f == s, "byte \(byte) at \(at)")
            }
        }
        var rng = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdefABCDEF".utf8)
        for _ in 0..<2000 {
            var b = base
            for at in 0..<36 where ![8, 13, 18, 23].contains(at) { b[at] = digits[Int(rng.next() % UInt64(digits.count))] }
            let (f, s) = RequestIDParseTests.parse(b)
            #expect(f != nil && f == s)
        }
    }
}
