import Foundation
import SiftCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Batches read input by input: `--format jsonl`, `--shard K/N`, `pbsift merge`, and memory that does
/// not grow with the number of inputs. The exports are copies of the samples, made at test time.
@Suite(.serialized) struct BatchTests {
    /// A folder of `count` exports: copies of the incident sample, and every tenth a cut-short one.
    static func folder(_ count: Int) throws -> URL {
        let dir = try makeTempDir().appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let incident = packageRoot.appendingPathComponent("samples/export-incident.zip")
        let cut = packageRoot.appendingPathComponent("samples/damaged/truncated.tar.gz")
        for i in 0..<count {
            let damaged = i % 10 == 9
            let name = String(format: "export-%05d", i) + (damaged ? ".tar.gz" : ".zip")
            let to = dir.appendingPathComponent(name)
            if (try? FileManager.default.linkItem(at: damaged ? cut : incident, to: to)) == nil {
                try FileManager.default.copyItem(at: damaged ? cut : incident, to: to)
            }
        }
        return dir
    }

    static func sortedLines(_ text: String) -> [Substring] { text.split(separator: "\n").sorted() }

    /// Four shards merged give the lines, the documents and the exit status of one run.
    @Test(arguments: ["verify", "report", "inspect", "waterfall"])
    func fourShardsMergeIntoOneRun(_ command: String) throws {
        let dir = try Self.folder(24)
        let one = try Binary.run([command, "-f", "jsonl", "-q", dir.path])
        var shards: [URL] = []
        var seen = 0
        for k in 1...4 {
            let out = dir.deletingLastPathComponent().appendingPathComponent("shard-\(k).jsonl")
            let r = try Binary.run([command, "-f", "jsonl", "-q", "--shard", "\(k)/4", dir.path, "-o", out.path])
            #expect(r.status == 2 || r.status == 1 || r.status == 0, "\(r.err)")
            seen += (try String(contentsOf: out, encoding: .utf8)).split(separator: "\n").filter { $0.contains(#""type":"input""#) }.count
            shards.append(out)
        }
        // Every input once between the shards (the folder itself is one of them).
        #expect(seen == 25)
        // A shard missing, or one given twice: the inputs it holds are not the one run's.
        let three = try Binary.run(["merge"] + shards.dropLast().map(\.path))
        #expect(three.status == 2 && three.err.contains("1 of 4 shards missing (the first: 4/4)"), "\(three.err)")
        let twice = try Binary.run(["merge"] + shards.map(\.path) + [shards[0].path])
        #expect(twice.status == 2 && twice.err.contains("was read before") && twice.err.contains("shard 1/4 again"), "\(twice.err)")
        let merged = try Binary.run(["merge", "-f", "jsonl"] + shards.map(\.path))
        #expect(merged.status == one.status && one.status == 2, "\(merged.err)")
        #expect(Self.sortedLines(merged.out) == Self.sortedLines(one.out))
        if command == "verify" {
            for format in ["json", "text", "sarif", "junit", "csv", "markdown"] {
                let single = try Binary.run(["verify", "-f", format, "-q", dir.path])
                let joined = try Binary.run(["merge", "-f", format] + shards.map(\.path))
                #expect(joined.status == single.status, "\(format)")
                #expect(joined.out == single.out, "\(format) differs")
            }
        }
    }

    /// A folder named through a link is a folder to the batch as it is to the walk: the exports in
    /// it are read, each on its own line, as when it is named directly.
    @Test func aLinkedFolderIsReadWhole() throws {
        let dir = try Self.folder(3)
        let link = dir.deletingLastPathComponent().appendingPathComponent("linked")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: dir)
        let direct = try Binary.run(["verify", "-f", "jsonl", "-q", dir.path])
        let linked = try Binary.run(["verify", "-f", "jsonl", "-q", link.path])
        let inputs = { (r: Binary.Result) in r.out.split(separator: "\n").filter { $0.contains(#""type":"input""#) }.count }
        #expect(inputs(direct) == 4 && inputs(linked) == 4, "\(linked.out.prefix(400))")
        #expect(linked.status == direct.status)
    }

    /// Each line says what it is; a finding line carries its record.
    @Test func linesAreSelfDescribing() throws {
        let r = try Binary.run(["verify", "-f", "jsonl", packageRoot.appendingPathComponent("samples/export-incident.zip").path])
        #expect(r.status == 1)
        let lines = r.out.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.allSatisfy { $0?["schema"] as? Int == 1 && $0?["command"] as? String == "verify" })
        #expect(lines.first??["type"] as? String == "input")
        #expect(lines.last??["type"] as? String == "summary")
        #expect(lines.last??["exitStatus"] as? Int == 1)
        let findings = lines.filter { $0?["type"] as? String == "finding" }
        #expect(findings.count == 11)
        #expect(findings.allSatisfy { $0?["rule"] != nil && $0?["input"] != nil })
        #expect(findings.filter { $0?["seq"] != nil }.count >= 10)
    }

    /// correlate joins each input with the logs on its own line.
    @Test func correlateWritesAnInputLineEach() throws {
        let r = try Binary.run([
            "correlate", "-f", "jsonl", packageRoot.appendingPathComponent("samples/export-incident.zip").path,
            packageRoot.appendingPathComponent("samples/export-clean").path, "--logs",
            packageRoot.appendingPathComponent("samples/logs").path
        ])
        let lines = r.out.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.map { $0?["type"] as? String } == ["input", "input", "summary"], "\(r.err)")
        #expect((lines[0]?["correlate"] as? [String: Any])?["requests"] != nil)
        #expect(Int(r.status) == lines.last??["exitStatus"] as? Int)
    }

    @Test func shardsAndMergeRefuseWhatTheyCannotDo() throws {
        let sample = packageRoot.appendingPathComponent("samples/export-incident.zip").path
        for bad in ["0/4", "5/4", "a/b", "1/", "1/0", "2/1"] {
            let r = try Binary.run(["verify", "--shard", bad, sample])
            #expect(r.status == 64, "\(bad): \(r.err)")
        }
        let baseline = try makeTempDir().appendingPathComponent("b.json").path
        #expect(try Binary.run(["verify", "-f", "jsonl", "--write-baseline", baseline, sample]).status == 64)

        // Lines of two commands, a line that is not a batch's, nothing at all: exit 2, said.
        let dir = try makeTempDir()
        let v = dir.appendingPathComponent("v.jsonl"), i = dir.appendingPathComponent("i.jsonl")
        _ = try Binary.run(["verify", "-f", "jsonl", sample, "-o", v.path])
        _ = try Binary.run(["inspect", "-f", "jsonl", sample, "-o", i.path])
        let mixed = try Binary.run(["merge", v.path, i.path])
        #expect(mixed.status == 2 && mixed.err.contains("a line of 'inspect' among lines of 'verify'"), "\(mixed.err)")
        let junk = try Binary.run(["merge", "-"], stdin: "{\"a\":1}\nnot json\n")
        #expect(junk.status == 2 && junk.err.contains("line 1: not a line of a pbsift batch") && junk.err.contains("line 2: not JSON"))
        let empty = try Binary.run(["merge", "-"], stdin: "")
        #expect(empty.status == 2 && empty.err.contains("no line of a batch was read"))
        // A run cut short (no summary line) is not a whole run.
        let cut = try String(contentsOf: v, encoding: .utf8).split(separator: "\n").dropLast().joined(separator: "\n")
        let short = try Binary.run(["merge", "-"], stdin: cut)
        #expect(short.status == 2 && short.err.contains("no summary line"), "\(short.err)")
    }

    /// Lines are files anyone can write: merge masks a credential's shape in what it prints again.
    @Test func mergeMasksWhatItReadsAgain() throws {
        // A JSON Web Token's shape, made here from its parts.
        let jwt = [#"{"alg":"HS256","typ":"JWT"}"#, #"{"sub":"usr_123","iat":1700000000}"#, "signature bytes here 1234567890"].map {
            Data($0.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
        }.joined(separator: ".")
        let lines = [
            #"{"schema":1,"command":"verify","type":"input","input":"a.zip","container":"zip","status":"ok","errors":[],"exitStatus":1,"worst":"high","verify":{"inputs":1,"findings":1}}"#,
            #"{"schema":1,"command":"verify","type":"finding","input":"a.zip","rule":"secret.jwt","severity":"high","message":"leaked \#(jwt) here"}"#,
            #"{"schema":1,"command":"verify","type":"summary","failOn":"high","incomplete":false,"shard":null}"#
        ].joined(separator: "\n")
        for format in ["text", "json", "jsonl", "sarif", "junit", "csv", "markdown"] {
            let r = try Binary.run(["merge", "-f", format, "-"], stdin: lines)
            #expect(r.status == 1, "\(format): \(r.err)")
            #expect(!r.out.contains(jwt) && !r.out.contains(String(jwt.suffix(20))), "\(format) printed the token")
        }
    }

    /// The resident peak of `pbsift ARGS` (KiB), standard output discarded.
    static func peakKiB(_ args: [String]) throws -> (status: Int32, kib: Int) {
        let binary = try #require(Binary.url).path
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([binary] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { env.forEach { free($0) } }
        let rc = posix_spawn(&pid, binary, &actions, nil, argv, env)
        #expect(rc == 0)
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        return ((status >> 8) & 0xFF, usage.ru_maxrss)
    }

    /// Memory does not grow with the number of inputs: 400 exports peak within a few MiB of 40.
    @Test(arguments: [["verify"], ["verify", "-f", "jsonl"], ["report", "-f", "jsonl"]])
    func memoryDoesNotGrowWithTheInputs(_ command: [String]) throws {
        let few = try Self.folder(40), many = try Self.folder(400)
        let a = try Self.peakKiB(command + [few.path])
        let b = try Self.peakKiB(command + [many.path])
        #expect(a.status == 2 && b.status == 2)
        #expect(b.kib - a.kib < 12 << 10, "\(command): \(a.kib) KiB for 40 exports, \(b.kib) KiB for 400")
    }
}

/// Every command lists an input's sessions in the order they were launched, whatever the order of
/// their files.
@Suite struct SessionOrderTests {
    @Test func sessionsAreInLaunchOrderEverywhere() throws {
        let root = try makeTempDir().appendingPathComponent("PalbeConsole")
        let sessions = root.appendingPathComponent("sessions")
        try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true)
        // The file read first was launched last.
        let late = "ses_aaaaaaaa-0000-4000-8000-000000000001", early = "ses_zzzzzzzz-0000-4000-8000-000000000002"
        for (id, hour) in [(late, "12"), (early, "08")] {
            let lines = [
                #"{"type":"session","seq":0,"ts":"2026-11-29T\#(hour):00:00.000Z","formatVersion":1,"sessionId":"\#(id)","launchedAt":"2026-11-29T\#(hour):00:00.000Z"}"#,
                #"{"type":"network","seq":1,"ts":"2026-11-29T\#(hour):00:01.000Z","id":"rec_1","method":"GET","url":"https://a.test/x","state":"success","statusCode":200,"duration":0.1}"#
            ]
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: sessions.appendingPathComponent(id + ".jsonl"))
        }
        func order(_ text: String) -> [String] {
            text.matches(of: /ses_(aaaaaaaa|zzzzzzzz)/).map { String($0.1) }.reduce(into: []) { if $0.last != $1 { $0.append($1) } }
        }
        func ids(_ json: String, _ path: String...) -> String {
            let doc = try? JSONDocument(string: json)
            return (doc?.root[path[0]]?.elements ?? []).compactMap { $0[path[1]]?.string }.joined(separator: " ")
        }
        let expected = ["zzzzzzzz", "aaaaaaaa"]
        #expect(order(ids(try Binary.run(["inspect", root.path, "--json"]).out, "sessions", "sessionId")) == expected)
        #expect(order(ids(try Binary.run(["report", root.path, "--json", "-q"]).out, "sessions", "sessionId")) == expected)
        let text = try Binary.run(["report", root.path, "-q"]).out
        let listing = try #require(text.range(of: "Sessions:"))
        #expect(order(String(text[listing.lowerBound...].prefix(300))) == expected)
        #expect(order(try Binary.run(["waterfall", root.path]).out) == expected)
        #expect(order(ids(try Binary.run(["waterfall", root.path, "--json"]).out, "requests", "sessionId")) == expected)
    }
}
