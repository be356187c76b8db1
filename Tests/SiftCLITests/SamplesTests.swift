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

    @Test(arguments: [
        "export-clean", "export-incident.zip", "export-incident.tar.gz",
        "ses_6b0404f2-b094-40b8-ab01-a1c12a3a2107.jsonl", "ses_c393fd0e-1cc6-4be5-b836-46bf0324aac3.jsonl.gz",
        "debug-tail.jsonl"
    ])
    func intactSamplesReadInFull(_ name: String) throws {
        let r = runCLI(["inspect", "--json", "--fail-on", "never", Self.samples.appendingPathComponent(name).path])
        #expect(r.status == 0)
        let doc = try JSONDocument(string: r.out)
        #expect(doc.root["inputs"]?.elements.first?["status"]?.string == "ok")
        let integrity =
            doc.root["findings"]?.elements.compactMap { $0["rule"]?.string }.filter {
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
        #expect(
            zip.replacingOccurrences(of: "export-incident.zip", with: "X").replacingOccurrences(of: "PalbeConsole/", with: "")
                == tgz.replacingOccurrences(of: "export-incident.tar.gz", with: "X"))
    }
}

@Suite struct FolderOfExportsTests {
    @Test func archivesInAFolderAreInputsOfTheirOwn() throws {
        let r = runCLI(["inspect", "--json", "--fail-on", "never", SamplesTests.samples.path])
        let doc = try JSONDocument(string: r.out)
        let inputs = doc.root["inputs"]?.elements.compactMap { $0["path"]?.string } ?? []
        #expect(inputs.contains { $0.hasSuffix("export-incident.zip") })
        #expect(inputs.contains { $0.hasSuffix("export-incident.tar.gz") })
        // The damaged archives inside make the run incomplete: exit 2, whatever --fail-on says.
        #expect(r.status == 2)
    }

    /// A minimal ustar archive, built here so the test needs no tool.
    static func tar(_ files: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, data) in files {
            var h = [UInt8](repeating: 0, count: 512)
            func put(_ s: String, _ at: Int) { for (i, b) in s.utf8.enumerated() { h[at + i] = b } }
            put(name, 0)
            put("0000644", 100); put("0000000", 108); put("0000000", 116)
            put(String(format: "%011o", data.count), 124)
            put(String(format: "%011o", 0), 136)
            put("        ", 148)
            h[156] = UInt8(ascii: "0")
            put("ustar", 257); put("00", 263)
            let sum = h.reduce(0) { $0 + Int($1) }
            put(String(format: "%06o", sum), 148); h[154] = 0; h[155] = 0x20
            out += h + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
        }
        return out + [UInt8](repeating: 0, count: 1024)
    }

    @Test func anArchiveInsideAnArchiveIsNotReadAndSaysSo() throws {
        let inner = Self.tar([("sessions/\(Fixture.sessionId).jsonl", Array((Fixture.clean.joined(separator: "\n") + "\n").utf8))])
        let outer = Self.tar([("export/inner.tar", inner)])
        let dir = try makeTempDir()
        let path = dir.appendingPathComponent("outer.tar")
        try Data(outer).write(to: path)
        let r = runCLI(["inspect", "--json", path.path])
        #expect(r.status == 2)
        let doc = try JSONDocument(string: r.out)
        #expect(doc.root["inputs"]?.elements.first?["status"]?.string == "partial")
        #expect(doc.root["findings"]?.elements.contains { $0["rule"]?.string == "archive.unsupported" } == true)
        // The same inner archive in a folder is read.
        try Data(inner).write(to: dir.appendingPathComponent("inner.tar"))
        try FileManager.default.removeItem(at: path)
        let r2 = runCLI(["inspect", "--json", dir.path])
        #expect(r2.status == 0)
        #expect((try JSONDocument(string: r2.out)).root["sessions"]?.count == 1)
    }
}
