import Foundation
import Testing
@testable import SiftCLI

/// A link inside a `--logs` folder is never followed; its error says how to read a folder made of
/// links (Kubernetes' /var/log/containers): name the files, as a link named on the command line is.
@Suite struct LogFolderLinkTests {
    @Test func aFolderOfLinksSaysToNameTheFiles() throws {
        let dir = try makeTempDir()
        let real = dir.appendingPathComponent("real")
        let links = dir.appendingPathComponent("containers")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        for name in ["a", "b"] {
            let target = real.appendingPathComponent("\(name).log")
            try Data("2026-11-29T10:15:02Z INFO request served\n".utf8).write(to: target)
            try FileManager.default.createSymbolicLink(
                atPath: links.appendingPathComponent("\(name).log").path,
                withDestinationPath: target.path)
        }
        let export = packageRoot.appendingPathComponent("samples/export-incident.zip").path
        let r = try Binary.run(["correlate", export, "--logs", links.path])
        #expect(r.status == 2)
        let lines = r.err.split(separator: "\n").filter { $0.contains("a symbolic link; skipped, never followed") }
        #expect(lines.count == 2, "\(r.err)")
        // Said once, not per link.
        #expect(r.err.components(separatedBy: "name its files: --logs \(links.path)/*.log").count == 2, "\(r.err)")
        // Named one by one, the links are read.
        let named = try Binary.run([
            "correlate", export, "--logs", links.appendingPathComponent("a.log").path,
            "--logs", links.appendingPathComponent("b.log").path
        ])
        #expect(!named.err.contains("symbolic link"), "\(named.err)")
    }
}
