import Foundation
import Testing
@testable import SiftCLI

/// `pbsift verify` end to end, in memory.
@Suite struct VerifyCommandTests {
    /// A GitHub token assembled at run time, its checksum computed (one that fails is high, not critical).
    static let token = EncodedSpanTests.checksummedGitHub(21)

    static func leaking() -> [String] {
        let log =
            #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"x","message":"token \#(token)","metadata":{"password":"hunter"#
            + "2" + #""}}"#
        return [Fixture.header(), Fixture.network, log]
    }

    @Test func cleanExitsZero() throws {
        let path = try Fixture.write(Fixture.clean)
        let r = runCLI(["verify", path])
        #expect(r.status == 0)
        #expect(r.out.contains("no findings"))
    }

    @Test func credentialExitsOneAndNeverPrintsIt() throws {
        let path = try Fixture.write(VerifyCommandTests.leaking())
        for format in ["text", "json", "csv", "markdown", "sarif"] {
            let r = runCLI(["verify", "--format", format, path])
            #expect(r.status == 1, "\(format)")
            #expect(!r.out.contains(VerifyCommandTests.token) && !r.out.contains("hunter" + "2"), "\(format)")
            #expect(r.out.contains("secret.github-token") && r.out.contains("redaction.metadata-field"), "\(format)")
        }
        #expect(runCLI(["verify", "--fail-on", "critical", path]).status == 1)
        #expect(runCLI(["verify", "--fail-on", "never", path]).status == 0)
    }

    @Test func frameInExportIsReported() throws {
        let path = try Fixture.write(Fixture.withFrame)
        let r = runCLI(["verify", "--json", path])
        #expect(r.status == 1)
        #expect(r.out.contains("policy.frame-in-export"))
    }

    @Test func unreadableInputExitsTwo() throws {
        let path = try Fixture.write(VerifyCommandTests.leaking())
        let r = runCLI(["verify", path, "/nonexistent/export.zip"])
        #expect(r.status == 2)
    }

    @Test func baselineRoundTrip() throws {
        let path = try Fixture.write(VerifyCommandTests.leaking())
        let dir = try makeTempDir()
        let base = dir.appendingPathComponent("baseline.json").path
        let w = runCLI(["verify", "--write-baseline", base, path])
        // Writing a baseline accepts every finding: exit 0, and standard error says what was written.
        #expect(w.status == 0)
        #expect(w.err.contains("wrote") && w.err.contains(base))
        #expect(FileManager.default.fileExists(atPath: base + ".key"))
        let text = try String(contentsOfFile: base, encoding: .utf8)
        #expect(text.contains("secret.github-token") && !text.contains(VerifyCommandTests.token))
        let r = runCLI(["verify", "--baseline", base, path])
        #expect(r.status == 0)
        #expect(r.out.contains("2 accepted by the baseline"))
    }

    @Test func extraFieldAndConfig() throws {
        let log =
            #"{"type":"log","seq":2,"ts":"2026-11-29T10:15:03.500Z","level":"info","label":"x","message":"m","metadata":{"pin":"1234"}}"#
        let path = try Fixture.write([Fixture.header(), log])
        #expect(runCLI(["verify", path]).status == 0)
        #expect(runCLI(["verify", "--extra-field", "PIN", path]).status == 1)
        let dir = try makeTempDir()
        let cfg = dir.appendingPathComponent("verify.json").path
        try Data(#"{"extraFields": {"body": ["pin"]}}"#.utf8).write(to: URL(fileURLWithPath: cfg))
        #expect(runCLI(["verify", "--config", cfg, path]).status == 1)
        let bad = runCLI(["verify", "--config", dir.appendingPathComponent("missing.json").path, path])
        #expect(bad.status == 64)
        #expect(bad.err.contains("cannot read"))
    }
}
