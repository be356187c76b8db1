import Foundation
import Testing
@testable import SiftCLI

/// Memory is counted in what a parsed line holds, not in its length, and every bound that is reached
/// is named: a line of more values than the bound is a finding and an error, and a record of several
/// MiB, checked where it was read, keeps the findings' order.
@Suite(.serialized) struct HeldBytesTests {
    static func log(_ seq: Int, _ message: String) -> String {
        #"{"type":"log","seq":\#(seq),"ts":"2026-11-29T10:15:0\#(seq % 10).000Z","level":"error","label":"checkout","message":"\#(message)"}"#
    }

    @Test func aLineOfTooManyValuesIsNamedAndTheInputPartial() throws {
        let many = "[" + Array(repeating: "0", count: (1 << 20) + 10).joined(separator: ",") + "]"
        let big = #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.000Z","level":"info","message":"m","v":\#(many)}"#
        let path = try Fixture.write(Fixture.clean + [big])
        let r = try Binary.run(["inspect", "--format", "json", path])
        #expect(r.status == 2, "\(r.err)")
        #expect(r.err.contains("holds more than 1048576 JSON values; skipped"), "\(r.err)")
        #expect(r.out.contains("line holds more than 1048576 JSON values, over the limit; not read as a record"))
    }

    /// A record over half the workers' budget is checked on the reader's thread: the findings are
    /// those of a serial run, in the same order.
    @Test func aLargeRecordKeepsTheFindingsInOrder() throws {
        var lines = [Fixture.header()]
        for i in 1...40 {
            let token = VerifyBypassTests.token(UInt64(100 + i))
            if i == 20 {
                lines.append(Self.log(i, String(repeating: "word ", count: (9 << 20) / 5) + "id " + token))
            } else {
                lines.append(Self.log(i, "retry with " + token))
            }
        }
        let path = try Fixture.write(lines)
        let r = try Binary.run(["verify", "--format", "json", path])
        #expect(r.status == 1, "\(r.err)")
        let doc = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        let found = (doc?["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "secret.github-token" }
        #expect(found.compactMap { $0["line"] as? Int } == Array(2...41), "\(found.compactMap { $0["line"] as? Int })")
    }
}
