import Foundation
import Testing
@testable import SiftCLI

/// `.pbsift.json` (found upward from the working folder, or `--config`) and `make install`,
/// through the built binary.
@Suite(.serialized) struct ConfigAndInstallTests {
    let incident = packageRoot.appendingPathComponent("samples/export-incident.zip").path
    let logs = packageRoot.appendingPathComponent("samples/logs").path

    /// A folder holding `.pbsift.json` with `text`, and a folder two levels below it.
    func project(_ text: String) throws -> (root: URL, deep: URL) {
        let root = try makeTempDir()
        try Data(text.utf8).write(to: root.appendingPathComponent(".pbsift.json"))
        let deep = root.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        return (root, deep)
    }

    @Test func defaultsFromTheNearestConfigFile() throws {
        let p = try project(#"{"failOn": "never", "logs": ["\#(logs)"]}"#)
        // A config found by looking upward is named on stderr, and may add checks but never lower
        // the gate: its failOn "never" is ignored (and said so), verify still fails on the leaks.
        let verify = try Binary.run(["verify", incident], cwd: p.deep)
        #expect(verify.status == 1)
        let found = p.root.appendingPathComponent(".pbsift.json").path
        #expect(verify.err.contains("pbsift: \(found): defaults read from this config file"), "\(verify.err)")
        #expect(verify.err.contains("never lowers the gate: failOn \"never\""), "\(verify.err)")
        // Named with --config it applies, and says that it lowers the gate.
        let named = try Binary.run(["verify", incident, "--config", found], cwd: p.deep)
        #expect(named.status == 0)
        #expect(
            !named.err.contains("defaults read from") && named.err.contains("this config lowers the gate: failOn \"never\""), "\(named.err)"
        )
        #expect(try Binary.run(["verify", incident], cwd: packageRoot).status == 1)
        // The logs: show and correlate read them without --logs.
        let show = try Binary.run(["show", incident, "38"], cwd: p.deep)
        #expect(show.out.contains("Server: 6 server lines (matched)"))
        let correlate = try Binary.run(["correlate", incident, "--json"], cwd: p.deep)
        #expect(correlate.status == 0 && correlate.out.contains("\"matched\""))
        // The command line wins.
        #expect(try Binary.run(["verify", incident, "--fail-on", "high"], cwd: p.deep).status == 1)
    }

    @Test func redactionNamesAndAllowedFingerprints() throws {
        let key = "pin" + "Code"
        let record =
            #"{"type":"network","seq":1,"ts":"2026-11-29T10:15:02.000Z","id":"rec_0001","source":"sdk","kind":"http","category":"call","method":"POST","url":"https://api.example.test/v1/pay","state":"success","statusCode":200,"duration":0.1,"request":{"headers":[],"body":{"size":17,"contentType":"application/json","encoding":"utf8","text":"{\"\#(key)\":\"4921\"}"}}}"#
        let path = try Fixture.write([Fixture.header(), record])
        let plain = try Binary.run(["verify", path, "--json", "--fail-on", "never"], cwd: packageRoot)
        #expect(!plain.out.contains("redaction.body-field"))
        let p = try project(#"{"extraFields": {"body": ["\#(key)"]}}"#)
        let named = try Binary.run(["verify", path, "--json", "--fail-on", "never"], cwd: p.deep)
        #expect(named.out.contains("redaction.body-field"))
        // Allowed by its fingerprint: not reported any more.
        let doc = try JSONSerialization.jsonObject(with: Data(named.out.utf8)) as? [String: Any]
        let prints = (doc?["findings"] as? [[String: Any]] ?? []).compactMap { $0["fingerprint"] as? String }
        #expect(!prints.isEmpty)
        let list = prints.map { "\"\($0)\"" }.joined(separator: ",")
        let q = try project(#"{"extraFields": {"body": ["\#(key)"]}, "allowFingerprints": [\#(list)]}"#)
        // Found by looking upward, allowed fingerprints would lower the gate: ignored.
        let searched = try Binary.run(["verify", path, "--json", "--fail-on", "never"], cwd: q.deep)
        #expect(searched.out.contains("redaction.body-field"))
        #expect(searched.err.contains("allowFingerprints (\(prints.count) fingerprint"), "\(searched.err)")
        let file = q.root.appendingPathComponent(".pbsift.json").path
        let allowed = try Binary.run(["verify", path, "--json", "--fail-on", "never", "--config", file], cwd: q.deep)
        #expect(!allowed.out.contains("redaction.body-field"))
        // Turning detectors off is the same.
        let off = try project(#"{"disableDetectors": ["generic-secret"]}"#)
        let r = try Binary.run(["verify", incident, "--json", "--fail-on", "never"], cwd: off.deep)
        #expect(r.err.contains("disableDetectors (1 detector)"), "\(r.err)")
    }

    /// The fingerprint key beside a baseline is made owner-only and must stay private and random:
    /// a key others can read, or one of a repeated byte, is refused (exit 64) naming the option.
    @Test func fingerprintKeyIsPrivateAndRandom() throws {
        let dir = try makeTempDir()
        let baseline = dir.appendingPathComponent("baseline.json").path
        #expect(try Binary.run(["verify", "--write-baseline", baseline, incident], cwd: packageRoot).status == 0)
        let keyPath = baseline + ".key"
        let mode = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try Binary.run(["verify", "--baseline", baseline, incident], cwd: packageRoot).status == 0)
        // Readable by others: refused.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
        let open = try Binary.run(["verify", "--baseline", baseline, incident], cwd: packageRoot)
        #expect(open.status == 64 && open.err.contains("--baseline") && open.err.contains("chmod 600"), "\(open.err)")
        // All zeros: not random.
        try FileManager.default.removeItem(atPath: keyPath)
        FileManager.default.createFile(
            atPath: keyPath, contents: Data((String(repeating: "00", count: 32) + "\n").utf8),
            attributes: [.posixPermissions: 0o600])
        let zero = try Binary.run(["verify", "--baseline", baseline, incident], cwd: packageRoot)
        #expect(zero.status == 64 && zero.err.contains("not random"), "\(zero.err)")
    }

    @Test(arguments: [
        (#"{"failon": "never"}"#, "unknown key 'failon'. Did you mean 'failOn'?"),
        (#"{"failOn": "sometimes"}"#, "'failOn' must be one of"),
        (#"{"logs": "api.log"}"#, "'logs' must be an array of strings"),
        (#"{"extraFields": {"cookies": []}}"#, "unknown key 'extraFields.cookies'"),
        (#"{"allowFingerprints": ["abc"]}"#, "'allowFingerprints' holds 'abc'"),
        (#"{"disableDetectors": ["jwtt"]}"#, "'disableDetectors' holds 'jwtt', which is no detector or rule id"),
        (#"{"extraFields": {"headers": "X-Key"}}"#, "'extraFields.headers' must be an array of strings"),
        ("[1]", "the top level must be an object"),
        ("{", "not JSON")
    ])
    func aWrongKeyOrValueIsAUsageErrorNamingFileAndKey(_ text: String, _ message: String) throws {
        let p = try project(text)
        let r = try Binary.run(["inspect", incident], cwd: p.deep)
        #expect(r.status == 64)
        let file = p.root.appendingPathComponent(".pbsift.json").path
        #expect(r.err.contains(file), "\(r.err)")
        #expect(r.err.contains(message), "\(r.err)")
        // Named with --config, the same.
        let named = try Binary.run(["waterfall", "--config", file, incident], cwd: packageRoot)
        #expect(named.status == 64 && named.err.contains(message))
    }

    @Test func makeInstallPutsBinaryManPageAndCompletionsUnderPrefix() throws {
        guard let make = ["/usr/bin/make", "/usr/local/bin/make"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
            let bin = Binary.url
        else { return }
        let prefix = try makeTempDir()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: make)
        p.currentDirectoryURL = packageRoot
        p.arguments = ["-s", "install-files", "PREFIX=\(prefix.path)", "BIN=\(bin.path)"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        for file in [
            "bin/pbsift", "share/man/man1/pbsift.1", "share/bash-completion/completions/pbsift",
            "share/zsh/site-functions/_pbsift", "share/fish/vendor_completions.d/pbsift.fish"
        ] {
            let path = prefix.appendingPathComponent(file).path
            #expect(FileManager.default.fileExists(atPath: path), "\(file)")
        }
        let installed = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/pbsift.1"), encoding: .utf8)
        #expect(installed == ManPage.render())
        let zsh = try String(contentsOf: prefix.appendingPathComponent("share/zsh/site-functions/_pbsift"), encoding: .utf8)
        #expect(zsh == runCLI(["completions", "zsh"]).out)
    }

    @Test func docsSpeakOfTheProductOnly() throws {
        for doc in ["docs/samples.md", "docs/cli.md", "docs/config.md"] {
            let text = try String(contentsOf: packageRoot.appendingPathComponent(doc), encoding: .utf8)
            for word in ["issue ", "helper", "the lead", "sprint", "/work/", "SESSION-FORMAT"] {
                #expect(!text.contains(word), "\(doc): \(word)")
            }
        }
    }
}
