import Foundation
import Testing

/// The output path's named doors (see docs/ARCHITECTURE.md, "What the compiler enforces"): text
/// reaches an output without passing the `Redactor` only through `SafeText(program:)` (pbsift's
/// own tables) and `SafeText(escaped:)` (redacted text its builder escaped). Each use is a
/// decision a reviewer makes: a new one fails here until it is added to this list on purpose.
@Suite struct OutputDoorsTests {
    static let allowed: [String: Int] = [
        "Sources/SiftCLI/Commands/CompletionsCommand.swift": 1, // the completion script
        "Sources/SiftCLI/Commands/CorrelateCommand.swift": 1, // --emit-query: a redacted query
        "Sources/SiftCLI/Commands/MergeCommand.swift": 1, // the text summary: a command name, counts, severities
        "Sources/SiftCLI/FollowVerify.swift": 2, // verify --follow: a finding's line (redacted, escaped) and the counts
        "Sources/SiftCLI/PBSift.swift": 13, // help, man page, version, usage lines, a config's gate lowerings
        "Sources/SiftCLI/QueryOptions.swift": 2, // formatted times
        "Sources/SiftCLI/Scrub/ScrubCommand.swift": 2 // rule ids and fingerprints
    ]

    @Test func theDoorsAreTheListedOnes() throws {
        let root = packageRoot.standardizedFileURL
        let sources = root.appendingPathComponent("Sources")
        let prefix = sources.path.count - "Sources".count
        var found: [String: Int] = [:]
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift", !url.path.hasSuffix("Output/SafeText.swift") else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let n =
                text.components(separatedBy: "SafeText(program:").count - 1 + text.components(separatedBy: "SafeText(escaped:").count - 1
            if n > 0 { found[String(url.standardizedFileURL.path.dropFirst(prefix))] = n }
        }
        #expect(found == Self.allowed, "a door to the output changed: \(found)")
    }
}
