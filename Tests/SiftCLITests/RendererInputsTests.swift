import Foundation
import Testing

/// Renderers see only redacted values: every entry point (public or package) in a `Render/` folder takes a
/// `Redacted<…>` model, or a model only a redactor builds (`WaterfallReport`, `SupportReport`), as its
/// first parameter, or is a method of such a model. A new entry point taking raw text or a raw
/// model fails here until it is listed below on purpose.
@Suite struct RendererInputsTests {
    /// Entry points that take no export text: numbers, pbsift's own words, or a redaction step.
    static let allowed: Set<String> = [
        "ClockSkew.words", // a number of seconds
        "VerifyRender.textSummary", // counts
        "redacted", // `Redactable` conformances: the redaction itself
        "RedactingSessions.add", // takes a session and redacts it on the way in
        "CorrelationRender.write" // the document of the redacted report it takes, written listing it
    ]
    static let sealedModels = ["Redacted<", "WaterfallReport", "SupportReport"]

    @Test func everyRendererTakesRedactedInput() throws {
        let root = packageRoot.standardizedFileURL.appendingPathComponent("Sources")
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        let decl = try NSRegularExpression(pattern: #"(?:public|package) (?:static )?func (\w+)\(\s*([^,)]*)"#)
        let ownerDecl = try NSRegularExpression(pattern: #"(?m)^(?:public |package )?(?:final )?(?:extension|enum|struct|class) (\w+)"#)
        var offenders: [String] = []
        var checked = 0
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift", url.deletingLastPathComponent().lastPathComponent == "Render" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let ns = text as NSString
            let owners = ownerDecl.matches(in: text, range: NSRange(location: 0, length: ns.length))
            for m in decl.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                let name = ns.substring(with: m.range(at: 1))
                let first = ns.substring(with: m.range(at: 2))
                let owner = owners.last { $0.range.location < m.range.location }.map { ns.substring(with: $0.range(at: 1)) } ?? ""
                checked += 1
                let type = first.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
                let sealed = Self.sealedModels.contains { type.hasPrefix($0) } || ["SupportReport", "WaterfallReport"].contains(owner)
                if !sealed && !Self.allowed.contains(name) && !Self.allowed.contains("\(owner).\(name)") {
                    offenders.append("\(url.lastPathComponent): \(owner).\(name)(\(first))")
                }
            }
        }
        #expect(checked > 20)
        #expect(offenders.isEmpty, "renderers taking unredacted input: \(offenders)")
    }
}
