import Foundation
import Testing
import SiftCore
@testable import SiftCorrelate

/// One folder per log shape under `Formats/`: a log file with request ids planted in lines of that shape
/// (and near misses: `req-<uuid>`, a bare uuid, a truncated and an upper-cased id), and `expected.json`:
/// the format detected and, per line that carries a wanted id, the fields read from it.
@Suite struct FormatCatalogueTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Formats")
    static let shapes: [String] = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()) ?? []

    struct Expected {
        var line: Int
        var id: String
        var ts: Double?
        var status: Int?
        var durationMs: Double?
        var method: String?
        var path: String?
        var level: String?
        var idInField: Bool
        /// A bare number whose unit the line alone cannot tell (Apache's `%{ms}T` beside the format's
        /// `%D`): the file's unit is read against the device's timings, so it is not checked here.
        var durationUnitAmbiguous = false
    }

    @Test func everyShapeHasAFixture() {
        #expect(Self.shapes.count >= 23)
    }

    @Test(arguments: shapes)
    func shape(_ name: String) throws {
        let dir = Self.folder.appendingPathComponent(name)
        let doc = try JSONDocument(bytes: Array(try Data(contentsOf: dir.appendingPathComponent("expected.json")))).root
        let format = try #require(doc["format"]?.string)
        let file = dir.appendingPathComponent(try #require(doc["file"]?.string)).path
        let expected: [Expected] = (doc["lines"]?.elements ?? []).map { e in
            Expected(
                line: e["line"]?.int ?? 0, id: e["id"]?.string ?? "", ts: e["ts"]?.string.flatMap(Timestamp.parse),
                status: e["status"]?.int, durationMs: e["durationMs"]?.double, method: e["method"]?.string,
                path: e["path"]?.string, level: e["level"]?.string, idInField: e["idInField"]?.bool ?? false,
                durationUnitAmbiguous: e["durationUnitAmbiguous"]?.bool ?? false)
        }
        let ids = Set(expected.map(\.id)).compactMap(RequestID.init)
        let scan = LogScanner(request: ScanRequest(ids: RequestIDSet(ids))).scan(paths: [file])
        #expect(scan.allErrors.isEmpty)
        #expect(scan.files.first?.format?.rawValue == format, "\(name): detected \(String(describing: scan.files.first?.format))")
        // Exactly the planted lines join: no near miss does.
        #expect(scan.lines.map(\.line) == expected.map(\.line), "\(name)")
        for (got, want) in zip(scan.lines, expected) {
            let p = got.parsed
            let at = "\(name):\(want.line)"
            #expect(got.ids.map(\.description).contains(want.id), "\(at)")
            #expect(p.format.rawValue == format, "\(at): \(p.format)")
            if let t = want.ts {
                #expect(p.ts.map { abs($0 - t) < 1e-3 } == true, "\(at): ts \(p.ts.map { Timestamp.format($0, micro: true) } ?? "nil")")
            }
            #expect(p.status == want.status, "\(at): status")
            if want.durationUnitAmbiguous {
                #expect(p.durationMs != nil, "\(at): durationMs")
            } else if let d = want.durationMs {
                #expect(
                    p.durationMs.map { abs($0 - d) < 1e-3 * max(1, d) } == true,
                    "\(at): durationMs \(String(describing: p.durationMs)) ≠ \(d)")
            } else {
                #expect(p.durationMs == nil, "\(at): durationMs \(String(describing: p.durationMs))")
            }
            if let m = want.method { #expect(p.method == m, "\(at): method") }
            if let path = want.path { #expect(p.path == path, "\(at): path \(String(describing: p.path))") }
            if let l = want.level { #expect(p.level == l, "\(at): level \(String(describing: p.level))") }
            let inField = RequestID(want.id).map { p.fieldIDs.contains($0) } ?? false
            #expect(inField == want.idInField, "\(at): id in a field: \(inField)")
        }
    }

    /// `--log-format` forces the entry, whatever the lines look like.
    @Test func forcedFormat() throws {
        let line =
            "203.0.113.7 - - [29/Nov/2026:10:15:04 +0000] \"POST /v1/auth/token HTTP/1.1\" 200 512 \"-\" \"ua\" req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b 38211"
        #expect(LineParser.parse(line).format.rawValue == "apache-combined")
        #expect(LineParser.parse(line).durationMs == 38.211)
        let forced = LineParser.parse(line, options: LogReadOptions(format: LogFormat(rawValue: "access-log")))
        #expect(forced.format.rawValue == "access-log")
        #expect(forced.status == 200)
        #expect(forced.durationMs == nil)
        #expect(LogFormat(rawValue: "no-such-format") == nil)
    }

    /// Naive times are taken in `--log-timezone`; zoned ones keep their offset.
    @Test func logTimezone() throws {
        let paris = try #require(LogReadOptions.zone("Europe/Paris"))
        let plus2 = try #require(LogReadOptions.zone("+02:00"))
        #expect(LogReadOptions.zone("UTC")?.secondsFromGMT() == 0)
        #expect(LogReadOptions.zone("Mars/Olympus") == nil)
        #expect(LogReadOptions.zone("+25:00") == nil)
        let utc = try #require(Timestamp.parse("2026-11-29T10:15:04.790Z"))
        let naive = "2026-11-29 11:15:04,790 INFO [req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b] api: GET / 200 3.0ms"
        #expect(LineParser.parse(naive, options: LogReadOptions(timezone: paris)).ts.map { abs($0 - utc) < 1e-6 } == true)
        let naive2 = "2026-11-29 12:15:04,790 INFO [req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b] api: GET / 200 3.0ms"
        #expect(LineParser.parse(naive2, options: LogReadOptions(timezone: plus2)).ts.map { abs($0 - utc) < 1e-6 } == true)
        let zoned =
            "{\"ts\": \"2026-11-29T11:15:04.790+01:00\", \"request_id\": \"req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b\", \"status\": 200}"
        #expect(LineParser.parse(zoned, options: LogReadOptions(timezone: plus2)).ts == utc)
    }

    /// syslog times have no year: the one nearest the reference time is taken.
    @Test func syslogYear() throws {
        let line = "Nov 29 10:15:04 api-1 api[312]: handled req_8b0e4c2a-6f1d-4e3b-9a57-1c2d3e4f5a6b status=200 duration_ms=3"
        let near = try #require(Timestamp.parse("2026-12-01T00:00:00Z"))
        let p = LineParser.parse(line, options: LogReadOptions(referenceTime: near))
        #expect(p.ts == Timestamp.parse("2026-11-29T10:15:04Z"))
        #expect(p.status == 200)
        let newYear = LineParser.parse(
            "Dec 31 23:59:59 api-1 api: x", options: LogReadOptions(referenceTime: Timestamp.parse("2027-01-01T00:00:10Z") ?? 0))
        #expect(newYear.ts == Timestamp.parse("2026-12-31T23:59:59Z"))
    }

    /// The catalogue is data: names are unique and every entry can be forced by name.
    @Test func catalogueNames() {
        let names = LogCatalogue.entries.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { LogFormat(rawValue: $0) != nil })
    }

    /// `docs/correlate.md` shows a line of every catalogue entry, and each is read as its entry.
    @Test func theDocsShowALineOfEachFormat() throws {
        let docs = Self.folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/correlate.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "### One line of each format\n"))
        let section = text[start.upperBound...].components(separatedBy: "\n### ")[0]
        var examples: [(name: String, lines: [String])] = []
        var name: String?
        var block: [String]?
        for line in section.components(separatedBy: "\n") {
            if line == "```" {
                if let b = block, let n = name { examples.append((n, b)) }
                block = block == nil ? [] : nil
            } else if block != nil {
                block?.append(line)
            } else if line.hasPrefix("`"), line.hasSuffix("`"), line.count > 2 {
                name = String(line.dropFirst().dropLast())
            }
        }
        #expect(examples.map(\.name) == LogCatalogue.entries.map(\.name))
        for (name, lines) in examples {
            let line = try #require(lines.last)
            if lines.contains(where: { $0.hasPrefix("#Fields:") }) {
                // A W3C line is read with the directive that names its columns.
                let dir = tempDir()
                write(dir + "/access.log", lines.joined(separator: "\n") + "\n")
                let ids = line.components(separatedBy: "req_").dropFirst().compactMap { RequestID("req_" + $0.prefix(36)) }
                let scan = LogScanner(request: ScanRequest(ids: RequestIDSet(ids))).scan(paths: [dir + "/access.log"])
                #expect(scan.files.first?.format?.rawValue == name, "\(name)")
            } else {
                #expect(LineParser.parse(line).format.rawValue == name, "\(name): read as \(LineParser.parse(line).format)")
            }
        }
    }
}
