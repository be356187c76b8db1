import Foundation
import Testing
@testable import SiftCLI
import SiftCore

@Suite struct RecordsTests {
    @Test func jsonlHasOneObjectPerRecord() throws {
        let path = try Fixture.write(Fixture.withFrame)
        let r = runCLI(["records", path])
        #expect(r.status == 1)   // the frame record is a high finding, as inspect says
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
        #expect(r.err.hasPrefix("Error: "))
    }

    @Test func secretHeadersAreMasked() throws {
        let token = "Bearer " + "abcdefgh" + "ijklmnop" + "qrstuvwx"
        let net = #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_1","method":"GET","url":"https://x.test/","request":{"headers":[{"name":"Authorization","value":"\#(token)"}],"body":{"size":0}}}"#
        let path = try Fixture.write([Fixture.header(), net])
        for format in ["jsonl", "csv"] {
            let r = runCLI(["records", "-f", format, "--columns", "request", path])
            #expect(!r.out.contains(token))
            #expect(!r.out.contains("ijklmnop"))
        }
    }
}
