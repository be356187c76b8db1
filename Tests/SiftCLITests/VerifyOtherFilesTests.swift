import Foundation
import Testing
import SiftCore
import SiftArchive

/// Files of an export that are neither session files nor blobs (notes, `export.json`, `store.json`, a
/// `.bak`, a `.json` beside the sessions) are read as text: a credential in one is a finding naming it.
@Suite(.serialized) struct VerifyOtherFilesTests {
    /// Where the credential goes, and the text around it.
    static let places: [(file: String, text: @Sendable (String) -> String)] = [
        ("notes.txt", { "remember to rotate \($0) before release\n" }),
        ("sessions/ses_b.json", { #"{"type":"log","seq":1,"message":"key \#($0)"}"# + "\n" }),
        ("sessions/ses_c.jsonl.bak", { Fixture.header() + "\n" + #"{"type":"log","seq":1,"message":"key \#($0)"}"# + "\n" }),
        ("export.json", { #"{"format":"palbe-console-export","version":1,"note":"\#($0)"}"# }),
        ("store.json", { #"{"budgetBytes":134217728,"owner":"\#($0)"}"# }),
        // One line over the 64 KiB piece, the credential at its end.
        ("big.log", { String(repeating: "x", count: 70_000) + " " + String(repeating: "y ", count: 10) + $0 }),
        // No white space at all: the credential straddles the 64 KiB cut.
        ("seam.log", { String(repeating: "x", count: 65_536 - 21) + "=" + $0 + "&" + String(repeating: "z", count: 100) })
    ]

    /// An export (folder, or zip of it) holding one clean session, a standard `export.json`, and `extra`.
    static func export(_ kind: String, extra: [(String, String)]) throws -> String {
        let dir = try makeTempDir()
        var files: [(String, String)] = [
            ("sessions/\(Fixture.sessionId).jsonl", Fixture.clean.joined(separator: "\n") + "\n")
        ]
        if !extra.contains(where: { $0.0 == "export.json" }) {
            files.append(("export.json", #"{"format":"palbe-console-export","version":1,"sessions":1}"#))
        }
        files += extra
        if kind == "folder" {
            let root = dir.appendingPathComponent("PalbeConsole")
            for (name, text) in files {
                let url = root.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
            return root.path
        }
        let path = dir.appendingPathComponent("export.zip").path
        let f = try NewFile(path: path)
        let zip = ZipWriter(sink: { try f.write($0) })
        for (name, text) in files { try zip.add(name: "PalbeConsole/" + name, bytes: Array(text.utf8)) }
        try zip.finish()
        try f.close()
        return path
    }

    @Test(arguments: ["folder", "zip"]) func aCredentialInAnyOtherFileIsAFinding(kind: String) throws {
        for (i, place) in Self.places.enumerated() {
            let token = VerifyBypassTests.token(UInt64(100 + i))
            let input = try Self.export(kind, extra: [(place.file, place.text(token))])
            let v = try VerifyBypassTests.verify([input])
            #expect(v.status == 1, "\(kind) \(place.file): exit \(v.status) \(v.err)")
            let files = v.findings.filter { $0["rule"]?.string == "secret.github-token" }.compactMap { $0["file"]?.string }
            #expect(files.contains { $0.hasSuffix(place.file) }, "\(kind) \(place.file): \(v.rules) \(files)")
            #expect(!v.err.contains(token.dropFirst(4)))
        }
    }

    @Test(arguments: ["folder", "zip"]) func aStandardExportStaysClean(kind: String) throws {
        let input = try Self.export(kind, extra: [("notes.txt", "nothing secret here\n")])
        let v = try VerifyBypassTests.verify([input])
        #expect(v.status == 0, "\(kind): exit \(v.status) \(v.rules) \(v.err)")
    }
}
