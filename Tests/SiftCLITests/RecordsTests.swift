import Foundation
import Testing
@testable import SiftCLI
import SiftCore
import SiftVerify

@Suite struct RecordsTests {
    @Test func jsonlHasOneObjectPerRecord() throws {
        let path = try Fixture.write(Fixture.withFrame)
        let r = runCLI(["records", path])
        #expect(r.status == 1) // the frame record is a high finding, as inspect says
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 3)
        for l in lines {
            let doc = try JSONDocument(string: String(l))
            #expect(doc.root["sessionId"]?.string == Fixture.sessionId)
            #expect(doc.root["line"]?.int != nil)
        }
    }

    @Test func filtersAndCSV() throws {
        let path = try Fixture.write(Fixture.clean)
        var r = runCLI(["records", "--type", "log", path])
        #expect(r.status == 0)
        #expect(r.out.split(separator: "\n").count == 1)
        #expect(r.out.contains("cart loaded"))
        r = runCLI(["records", "-f", "csv", "--columns", "seq,type,url", path])
        #expect(r.out == "seq,type,url\r\n1,network,https://api.example.test/v1/orders\r\n2,log,\r\n")
        r = runCLI(["records", "--status", "2xx", "--grep", "orders", path])
        #expect(r.out.split(separator: "\n").count == 1)
        r = runCLI(["records", "--since", "2026-11-29T10:15:03Z", path])
        #expect(r.out.split(separator: "\n").count == 1)
    }

    @Test(arguments: [["--status", "6xx"], ["--since", "yesterday"], ["--grep", "("], ["--level", "loud"]])
    func badValuesAreUsageErrors(_ extra: [String]) throws {
        let path = try Fixture.write(Fixture.clean)
        let r = runCLI(["records"] + extra + [path])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("pbsift: "))
    }

    @Test func secretHeadersAreMasked() throws {
        let token = "Bearer " + "abcdefgh" + "ijklmnop" + "qrstuvwx"
        let net =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","method":"GET","url":"https://x.test/","request":{"headers":[{"name":"Authorization","value":"\#(token)"}],"body":{"size":0}}}"#
        let path = try Fixture.write([Fixture.header(), net])
        for format in ["jsonl", "csv"] {
            let r = runCLI(["records", "-f", format, "--columns", "request", path])
            #expect(!r.out.contains(token))
            #expect(!r.out.contains("ijklmnop"))
        }
    }
}

@Suite struct RecordsMaskingTests {
    /// Every planted leak of the incident sample is masked in `records` output, in both formats.
    @Test(arguments: ["jsonl", "csv"])
    func incidentLeaksNeverPrinted(_ format: String) throws {
        let samples = packageRoot.appendingPathComponent("samples")
        let r = runCLI([
            "records", "-f", format, "--columns", "url,message,request,response,error",
            samples.appendingPathComponent("export-incident.zip").path
        ])
        #expect(!r.out.isEmpty)
        for secret in try PlantedLeaks.values() where secret.utf8.count >= 8 {
            #expect(!r.out.contains(secret), "a planted secret reached records output")
        }
    }
}

/// The planted secrets, recovered from the incident sample with the same scanner `verify` uses,
/// checked against the fingerprints in `samples/EXPECTED-LEAKS.json`.
enum PlantedLeaks {
    static func values() throws -> [String] {
        let url = packageRoot.appendingPathComponent("samples/EXPECTED-LEAKS.json")
        let doc = try JSONDocument(bytes: Array(try Data(contentsOf: url)))
        let fingerprints = Set(doc.root["leaks"]?.elements.compactMap { $0["fingerprint"]?.string } ?? [])
        var found: [String] = []
        // verify's own analysis, keeping the raw values it finds (in memory only).
        let analysis = VerifyAnalysis(parallel: false)
        analysis.keepSecretValues()
        _ = ExportReader().read(inputs: [packageRoot.appendingPathComponent("samples/export-incident.zip").path], analyses: [analysis])
        // A guessable value's fingerprint names its place, not the value: every such value the checks find is planted.
        for v in Set(analysis.secretValues) where fingerprints.contains(SecretMask.fingerprint(v)) || SecretMask.isGuessable(v) {
            found.append(v)
        }
        #expect(found.count >= 8)
        return found
    }
}

/// A credential one record holds is masked where another record repeats it as free text: before it
/// (files are read twice) and after it (standard input too).
@Suite struct RecordsKnownValuesTests {
    static let password = "Hunter" + "2-" + "qzvb" + "wrtk" + "plmn"
    static var lines: [String] {
        let body = #"{\"password\":\"\#(password)\"}"#
        let early =
            #"{"type":"log","seq":1,"ts":"2026-11-29T10:15:01.500Z","level":"info","label":"auth","message":"retry with \#(password) soon"}"#
        let net =
            #"{"type":"network","seq":2,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","method":"POST","url":"https://x.test/login","request":{"headers":[],"body":{"size":30,"contentType":"application/json","encoding":"utf8","text":"\#(body)"}}}"#
        let late =
            #"{"type":"log","seq":3,"ts":"2026-11-29T10:15:03.000Z","level":"info","label":"auth","message":"login \#(password) ok"}"#
        return [Fixture.header(), early, net, late]
    }

    @Test(arguments: ["jsonl", "csv"])
    func laterAndEarlierCopiesAreMaskedInAFile(_ format: String) throws {
        let path = try Fixture.write(Self.lines)
        for extra in [[], ["--type", "log"]] {
            let r = try Binary.run(["records", "-f", format, "--columns", "seq,message"] + extra + [path])
            #expect(r.out.contains("retry with") && r.out.contains("login"), "\(r.err)")
            #expect(!r.out.contains(Self.password) && !r.out.contains("qzvbwrtk"))
        }
    }

    @Test func standardInputMasksFromTheFirstRecordOnward() throws {
        let text = Self.lines.joined(separator: "\n") + "\n"
        let r = try Binary.run(["records", "--columns", "seq,message", "-f", "csv", "--type", "log", "-"], stdin: text)
        let out = r.out.components(separatedBy: "\r\n")
        let late = try #require(out.first { $0.hasPrefix("3,") })
        #expect(late.contains("login") && !late.contains(Self.password))
    }
}
