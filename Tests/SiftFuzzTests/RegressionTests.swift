import Foundation
import Testing
@testable import SiftFuzz

/// Replays every input the fuzzers ever broke (`fuzz/regressions/<target>/`) through the entry point
/// the fuzzer calls, without libFuzzer: each must now run to its end.
@Suite struct RegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz")

    static func files(_ target: String) -> [URL] {
        let dir = root.appendingPathComponent("regressions/\(target)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzEntries.all.map(\.name))
    func replay(target: String) throws {
        guard let entry = FuzzEntries.all.first(where: { $0.name == target }) else { return }
        for file in Self.files(target) {
            entry.run(Array(try Data(contentsOf: file)))
        }
        // And a few shapes every target must take: nothing, one byte, a NUL run.
        for bytes in [[], [0], [UInt8](repeating: 0, count: 64), Array("{\"type\":\"session\"}\n".utf8)] as [[UInt8]] {
            entry.run(bytes)
        }
    }

    @Test func everyTargetHasAFolderAndAScript() {
        for (name, _) in FuzzEntries.all {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Targets/\(name).swift").path), "\(name)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: Self.root.appendingPathComponent("run").path))
    }
}
