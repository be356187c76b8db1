import Foundation
import Testing
@testable import SiftCLI

/// The header's texts (session id, user id, environment, app, SDK and device facts) are held and
/// shown whole up to 512 bytes and cut in the middle past that, in every command and format: ten
/// thousand sessions of 20 KB ids are then not held, or printed, whole. `verify` still reads every
/// byte of them.
@Suite(.serialized) struct HeldTextTests {
    static let filler = String(repeating: "x", count: 20_000)

    /// A session whose header texts are each 20 KB; the user id carries a token in its middle.
    static func session(token: String) throws -> String {
        let long = filler
        let header =
            #"{"type":"session","seq":0,"ts":"2026-11-29T10:15:01.004Z","formatVersion":1,"sessionId":"ses_head\#(long)tail","launchedAt":"2026-11-29T10:15:01.002Z","app":{"bundleId":"com.\#(long)","version":"4.2.0","build":"512"},"sdk":{"name":"palbe-\#(long)","version":"3.1.0"},"device":{"model":"iPhone\#(long)","system":"iOS 18.1.1","locale":"en_GB","timeZone":"Europe/London"},"environmentRef":"env_\#(long)","userId":"usr_\#(long) \#(token) \#(long)end"}"#
        return try Fixture.write([header, Fixture.network, Fixture.log])
    }

    @Test func headerTextsAreCutInEveryCommandAndFormat() throws {
        let path = try Self.session(token: VerifyBypassTests.token(7))
        let logs = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("api.log").path
        try Data(#"{"ts":"2026-11-29T10:15:02.050Z","level":"info","request_id":"req_1","status":200}"#.utf8).write(
            to: URL(fileURLWithPath: logs))
        let runs: [[String]] = [
            ["inspect", path], ["inspect", "-f", "json", path], ["inspect", "-f", "csv", path], ["inspect", "-f", "markdown", path],
            ["waterfall", path], ["waterfall", "-f", "json", path], ["waterfall", "-f", "svg", path],
            ["correlate", "-f", "json", path, "--logs", logs],
            ["report", path], ["report", "-f", "json", path], ["report", "-f", "markdown", path], ["report", "-f", "html", path],
            ["report", "-f", "csv", path],
            ["verify", "-f", "json", path]
        ]
        let run500 = String(repeating: "x", count: 600)
        for args in runs {
            let r = try Binary.run(args)
            #expect(r.status <= 1, "\(args): \(r.err)")
            #expect(!r.out.contains(run500), "\(args) printed a header text whole")
            #expect(r.out.utf8.count < 40_000, "\(args): \(r.out.utf8.count) bytes")
        }
        let inspect = try Binary.run(["inspect", "-f", "json", path])
        #expect(inspect.out.contains("ses_headxxx") && inspect.out.contains("xxxtail"), "the id keeps both ends")
        #expect(inspect.out.contains("…"))
    }

    /// Held for display, read in full: a token in the middle of a 40 KB user id is found.
    @Test func verifyStillReadsTheWholeHeader() throws {
        let path = try Self.session(token: VerifyBypassTests.token(7))
        let r = try Binary.run(["verify", "-f", "json", path])
        #expect(r.status == 1, "\(r.err)")
        #expect(r.out.contains("secret.github-token"))
    }
}
