import Foundation
import Testing
@testable import SiftCLI
import SiftCore

/// The bundled samples produce exactly what `samples/damaged/EXPECTED-FINDINGS.json` and
/// `docs/samples.md` say they do.
@Suite struct SamplesTests {
    static let samples = packageRoot.appendingPathComponent("samples")

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var path: String
        var rules: [String]
        var description: String { name }
    }

    static var damagedCases: [Case] {
        let url = samples.appendingPathComponent("damaged/EXPECTED-FINDINGS.json")
        guard let data = try? Data(contentsOf: url), let doc = try? JSONDocument(bytes: Array(data)) else { return [] }
        return doc.root["cases"]?.elements.compactMap { c -> Case? in
            guard let name = c["case"]?.string, let file = c["file"]?.string else { return nil }
            // `file` names the session file; the export is its folder (or the archive itself).
            var path = samples.appendingPathComponent(file).path
            if let r = path.range(of: "/sessions/") { path = String(path[..<r.lowerBound]) }
            let rules = c["findings"]?.elements.compactMap { $0["rule"]?.string } ?? []
            return Case(name: name, path: path, rules: rules)
        } ?? []
    }

    @Test func thereAreDamagedCases() { #expect(Self.damagedCases.count >= 10) }

    @Test(arguments: damagedCases)
    func damagedCaseGivesItsFindings(_ c: Case) throws {
        let r = runCLI(["inspect", "--json", c.path])
        let doc = try JSONDocument(string: r.out)
        let got = Set(doc.root["findings"]?.elements.compactMap { $0["rule"]?.string } ?? [])
        for rule in c.rules { #expect(got.contains(rule), "\(c.name): expected \(rule), got \(got.sorted())") }
    }

    @Test(arguments: ["export-clean", "export-incident.zip", "export-incident.tar.gz",
                      "ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl", "ses_c393fd0e-1cc6-4be5-b836-46bf0324aac3.jsonl.gz",
                      "debug-tail.jsonl"])
    func intactSamplesReadInFull(_ name: String) throws {
        let r = runCLI(["inspect", "--json", "--fail-on", "never", Self.samples.appendingPathComponent(name).path])
        #expect(r.status == 0)
        let doc = try JSONDocument(string: r.out)
        #expect(doc.root["inputs"]?.elements.first?["status"]?.string == "ok")
        let integrity = doc.root["findings"]?.elements.compactMap { $0["rule"]?.string }.filter {
            $0.hasPrefix("integrity.") || $0.hasPrefix("archive.")
        } ?? []
        #expect(integrity.isEmpty, "\(integrity)")
        #expect((doc.root["sessions"]?.elements.first?["recordCount"]?.int ?? 0) > 0)
    }

    @Test func zipAndTarGzHoldTheSameExport() throws {
        func counts(_ name: String) throws -> String {
            let r = runCLI(["inspect", "--json", Self.samples.appendingPathComponent(name).path])
            let doc = try JSONDocument(string: r.out)
            return doc.root["sessions"]?.rawText ?? ""
        }
        let zip = try counts("export-incident.zip")
        let tgz = try counts("export-incident.tar.gz")
        #expect(zip.replacingOccurrences(of: "export-incident.zip", with: "X").replacingOccurrences(of: "PalbeConsole/", with: "")
                == tgz.replacingOccurrences(of: "export-incident.tar.gz", with: "X"))
    }
}
