import Foundation
import Testing
@testable import SiftCLI

/// Numbers from an input never trap a conversion or an operation: every command, on records whose
/// every numeric field is at JSON's edges, through the built binary (a trap would be a signal).
@Suite(.serialized) struct NeverCrashTests {
    static let numbers = [
        "1e308", "-1e308", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
        "1e-400", "-0", "123456789012345678901234567890", "4294967296"
    ]

    static func hostileSession() -> [String] {
        var lines = [Fixture.header()]
        for (i, n) in numbers.enumerated() {
            let metrics =
                #"{"taskInterval":{"start":"2026-11-29T10:15:02.000Z","duration":\#(n)},"redirectCount":\#(n),"transactions":[{"fetchStart":"2026-11-29T10:15:02.000Z","domainLookupStart":"9999-12-31T23:59:59.999Z","responseEnd":"0001-01-01T00:00:00.000Z","countOfRequestBodyBytesSent":\#(n),"remotePort":\#(n),"responseStatusCode":\#(n)}]}"#
            lines.append(
                #"{"type":"network","seq":\#(n),"ts":"2026-11-29T10:15:0\#(i).000Z","id":"rec_\#(i)","requestId":"req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6\#(i)","method":"GET","url":"https://a.test/v1/\#(n)?x=\#(n)","state":"failure","statusCode":\#(n),"duration":\#(n),"metrics":\#(metrics),"request":{"headers":[],"body":{"encoding":"base64","data":"AAAA","size":\#(n)}},"response":{"headers":[],"body":{"encoding":"utf8","text":"x","size":\#(n)}}}"#
            )
            lines.append(
                #"{"type":"log","seq":\#(n),"ts":"2026-11-29T10:15:0\#(i).500Z","level":"error","message":"m","metadata":{"n":\#(n)}}"#)
            lines.append(#"{"type":"event","seq":\#(n),"ts":\#(n),"name":"e","attributes":{"n":\#(n)}}"#)
        }
        return lines
    }

    @Test(arguments: ["inspect", "verify", "waterfall", "records", "report"])
    func everyCommandSurvivesHostileNumbers(command: String) throws {
        let path = try Fixture.write(Self.hostileSession())
        let formats: [String] =
            command == "records"
            ? ["jsonl", "csv"]
            : command == "report"
                ? ["text", "json", "markdown", "html"]
                : command == "waterfall" ? ["text", "json", "svg", "csv"] : ["text", "json"]
        for format in formats {
            let r = try Binary.run([command, "--format", format, path])
            #expect([0, 1, 2].contains(r.status), "\(command) \(format) exited \(r.status): \(r.err.suffix(400))")
        }
    }
}
