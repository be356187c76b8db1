import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

/// The bundled samples and their answer key (`samples/EXPECTED-LEAKS.json`).
@Suite struct SamplesTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../samples").standardized.path

    /// A planted leak: its rule and record. The answer key's fingerprint is the value's SHA-256;
    /// pbsift shows that only for values too long to guess (a guessable value's fingerprint is keyed
    /// or names its place), so fingerprints are compared where pbsift shows a `sha256:` one.
    struct Leak: Hashable { var rule: String; var seq: Int }

    static func expected() throws -> (inputs: [String], clean: [String], leaks: [Leak: String]) {
        let data = try #require(FileManager.default.contents(atPath: samples + "/EXPECTED-LEAKS.json"))
        let root = try JSONDocument(bytes: Array(data)).root
        let inputs = root["inputs"]?.elements.compactMap(\.string) ?? []
        let clean = root["cleanInputs"]?.elements.compactMap(\.string) ?? []
        var leaks: [Leak: String] = [:]
        for l in root["leaks"]?.elements ?? [] {
            if let r = l["rule"]?.string, let f = l["fingerprint"]?.string, let s = l["seq"]?.int { leaks[Leak(rule: r, seq: s)] = f }
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
            let found = Set(mine.map { Leak(rule: $0.rule, seq: $0.seq ?? -1) })
            let wanted = Set(key.leaks.keys)
            #expect(found == wanted, "\(input): missing \(wanted.subtracting(found)), extra \(found.subtracting(wanted))")
            for f in mine where f.fingerprint?.hasPrefix("sha256:") == true {
                #expect(f.fingerprint == key.leaks[Leak(rule: f.rule, seq: f.seq ?? -1)], "\(input): \(f.rule) seq \(f.seq ?? -1)")
            }
        }
        for input in key.clean {
            let o = ExportReader().read(inputs: [SamplesTests.samples + "/" + input], analyses: [VerifyAnalysis()])
            let mine = o.findings.filter { $0.rule.hasPrefix("secret.") || $0.rule.hasPrefix("redaction.") }
            #expect(mine.isEmpty, "\(input): \(mine.map { "\($0.rule) \($0.location ?? "")" })")
        }
    }
}
