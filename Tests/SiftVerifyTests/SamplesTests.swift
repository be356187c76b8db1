import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// The bundled samples and their answer key (`samples/EXPECTED-LEAKS.json`).
@Suite struct SamplesTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../samples").standardized.path

    struct Leak: Hashable { var rule: String; var fingerprint: String; var seq: Int }

    static func expected() throws -> (inputs: [String], clean: [String], leaks: Set<Leak>) {
        let data = try #require(FileManager.default.contents(atPath: samples + "/EXPECTED-LEAKS.json"))
        let root = try JSONDocument(bytes: Array(data)).root
        let inputs = root["inputs"]?.elements.compactMap(\.string) ?? []
        let clean = root["cleanInputs"]?.elements.compactMap(\.string) ?? []
        var leaks = Set<Leak>()
        for l in root["leaks"]?.elements ?? [] {
            if let r = l["rule"]?.string, let f = l["fingerprint"]?.string, let s = l["seq"]?.int { leaks.insert(Leak(rule: r, fingerprint: f, seq: s)) }
        }
        return (inputs, clean, leaks)
    }

    @Test func everyPlantedLeakIsFoundAndNothingElse() throws {
        guard FileManager.default.fileExists(atPath: SamplesTests.samples + "/EXPECTED-LEAKS.json") else { return }
        let key = try SamplesTests.expected()
        #expect(key.leaks.count >= 10)
        for input in key.inputs {
            let o = ExportReader().read(inputs: [SamplesTests.samples + "/" + input], analyses: [VerifyAnalysis()])
            let mine = o.findings.filter { $0.rule.hasPrefix("secret.") || $0.rule.hasPrefix("redaction.") }
            let found = Set(mine.map { Leak(rule: $0.rule, fingerprint: $0.fingerprint ?? "", seq: $0.seq ?? -1) })
            #expect(found == key.leaks, "\(input): missing \(key.leaks.subtracting(found)), extra \(found.subtracting(key.leaks))")
        }
        for input in key.clean {
            let o = ExportReader().read(inputs: [SamplesTests.samples + "/" + input], analyses: [VerifyAnalysis()])
            let mine = o.findings.filter { $0.rule.hasPrefix("secret.") || $0.rule.hasPrefix("redaction.") }
            #expect(mine.isEmpty, "\(input): \(mine.map { "\($0.rule) \($0.location ?? "")" })")
        }
    }
}
