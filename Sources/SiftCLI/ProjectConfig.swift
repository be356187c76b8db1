import Foundation
import SiftCore
import SiftCorrelate
import SiftVerify

/// Defaults from a config file (`docs/config.md`): `.pbsift.json` in the working folder or the
/// nearest folder above it, or the file `--config` names. The command line wins over the file.
/// This is the one reader of that file: `verify` and `report` take their redaction names, allowed
/// fingerprints and disabled detectors from `verify` below.
///
/// ```json
/// {"logs": ["logs/"], "failOn": "medium",
///  "extraFields": {"headers": ["X-Session"], "query": ["sig"], "body": ["pin"]},
///  "allowFingerprints": ["sha256:0123456789abcdef"], "disableDetectors": ["jwt"]}
/// ```
struct ProjectConfig: Sendable, Equatable {
    /// The file's name where it is looked for.
    static let fileName = ".pbsift.json"
    /// Every key the file may hold.
    static let keys = ["logs", "failOn", "extraFields", "allowFingerprints", "disableDetectors", "logFormats", "rules"]
    static let extraFieldKeys = ["headers", "query", "body"]

    /// The file read.
    var path: String
    /// Log paths, resolved against the file's folder.
    var logs: [String] = []
    var failOn: String?
    /// `extraFields`, `allowFingerprints` and `disableDetectors`, for `verify` and `report`.
    var verify = VerifyConfig()
    /// `logFormats`: the team's own server log formats (lnav's format-file form), tried before the catalogue.
    var logFormats: [UserLogFormat] = []
    /// `rules`: the team's own credential rules (`docs/rules.md`), run by every command beside pbsift's.
    var teamRules: [TeamRule] = []

    /// `--config <file>`, on every reporting command.
    static let option = OptionSpec(
        "config", value: "file",
        help: "Defaults from this config file instead of the nearest .pbsift.json (see docs/config.md).",
        takesPath: true)

    /// The nearest `.pbsift.json` from `folder` upward, or nil.
    static func find(from folder: String) -> String? {
        var url = URL(fileURLWithPath: folder).standardizedFileURL
        for _ in 0..<256 {
            let candidate = url.appendingPathComponent(fileName).path
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDir), !isDir.boolValue { return candidate }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
        return nil
    }

    /// Reads and checks a config file: a key it does not know, or a value of the wrong kind, is a
    /// usage error naming the file and the key.
    static func load(path: String) throws -> ProjectConfig {
        func fail(_ why: String) -> UsageError { UsageError("\(why) (see docs/config.md)", about: path) }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read the config file", about: path) }
        guard data.count <= 1 << 20 else { throw fail("larger than 1 MiB") }
        let root: JSONValue
        do { root = try JSONDocument(bytes: Array(data)).root } catch { throw fail("not JSON: \(error)") }
        guard root.isObject else { throw fail("the top level must be an object") }
        var config = ProjectConfig(path: path)
        func strings(_ v: JSONValue, _ key: String) throws -> [String] {
            guard v.isArray else { throw fail("'\(key)' must be an array of strings") }
            var out: [String] = []
            for e in v.elements {
                guard let s = e.string, !s.isEmpty else { throw fail("'\(key)' must be an array of strings") }
                out.append(s)
            }
            return out
        }
        for (key, value) in root.members {
            switch key {
            case "logs":
                let base = URL(fileURLWithPath: path).deletingLastPathComponent()
                config.logs = try strings(value, key).map { p in
                    p == "-" || p.hasPrefix("/") ? p : base.appendingPathComponent(p).path
                }
            case "failOn":
                guard let s = value.string, CommonOptionTable.failOnValues.contains(s) else {
                    throw fail("'failOn' must be one of \(CommonOptions.quotedList(CommonOptionTable.failOnValues))")
                }
                config.failOn = s
            case "extraFields":
                guard value.isObject else { throw fail("'extraFields' must be an object with headers, query and body") }
                for (k, v) in value.members {
                    let names = try strings(v, "extraFields.\(k)")
                    switch k {
                    case "headers": config.verify.extraHeaders += names
                    case "query": config.verify.extraQuery += names
                    case "body": config.verify.extraBody += names
                    default:
                        throw fail("unknown key 'extraFields.\(Escape.terminal(k))'; known: \(extraFieldKeys.joined(separator: ", "))")
                    }
                }
            case "allowFingerprints":
                let prints = try strings(value, key)
                for f in prints where !isFingerprint(f) {
                    throw fail(
                        "'allowFingerprints' holds '\(Escape.terminal(f))', not a fingerprint such as sha256:0123456789abcdef as verify prints them"
                    )
                }
                config.verify.allowFingerprints.formUnion(prints)
            case "disableDetectors":
                let ids = try strings(value, key)
                for id in ids where !VerifyConfig.isKnownDetector(id) {
                    throw fail(
                        "'disableDetectors' holds '\(Escape.terminal(id))', which is no detector or rule id (pbsift rules lists them)")
                }
                config.verify.disabledDetectors.formUnion(ids)
            case "logFormats":
                do { config.logFormats = try UserLogFormat.load(value) } catch let e as UserLogFormat.DefinitionError {
                    throw fail("'logFormats': \(Escape.terminal(e.description))")
                }
            case "rules":
                do { config.teamRules = try TeamRuleFile.rules(json: value, source: path) } catch {
                    throw fail("'rules': \(Escape.terminal(error.description))")
                }
            default:
                var why = "unknown key '\(Escape.terminal(key))'"
                if let s = Suggest.closest(to: key, in: keys) {
                    why += ". Did you mean '\(s)'?"
                } else {
                    why += "; known: \(keys.joined(separator: ", "))"
                }
                throw fail(why)
            }
        }
        return config
    }

    /// What in this config lowers the gate below pbsift's defaults: a `failOn` above `high`, detectors
    /// turned off, fingerprints allowed. A file found by looking upward may add checks but never
    /// these: a `.pbsift.json` left in a parent folder must not turn the gate off unseen.
    var lowerings: [String] {
        var out: [String] = []
        if let f = failOn, f == "critical" || f == "never" { out.append("failOn \"\(f)\"") }
        if !verify.disabledDetectors.isEmpty {
            out.append("disableDetectors (\(verify.disabledDetectors.count) detector\(verify.disabledDetectors.count == 1 ? "" : "s"))")
        }
        if !verify.allowFingerprints.isEmpty {
            out.append("allowFingerprints (\(verify.allowFingerprints.count) fingerprint\(verify.allowFingerprints.count == 1 ? "" : "s"))")
        }
        return out
    }

    /// The config without what lowers the gate (for a file found by looking upward).
    var withoutLowerings: ProjectConfig {
        var c = self
        if let f = failOn, f == "critical" || f == "never" { c.failOn = nil }
        c.verify.disabledDetectors = []
        c.verify.allowFingerprints = []
        return c
    }

    /// `--rules <file>`: a gitleaks config or pbsift's JSON rule form, on every reporting command and scrub.
    static let rulesOption = OptionSpec(
        "rules", value: "file",
        help: "Also run the team's credential rules in this file: a gitleaks config (TOML) or pbsift's JSON form (see docs/rules.md).",
        takesPath: true)

    /// Installs the team's rules (the config's `rules`, then each `--rules` file) before the command
    /// runs, so that every check and every mask of the process uses them. A rule that does not
    /// compile or misses its own example is a usage error naming it; what a file says that pbsift
    /// does not apply is a note on standard error.
    static func installTeamRules(_ parsed: ParsedOptions, io: CommandIO) throws {
        var rules: [TeamRule] = []
        if let path = parsed.value("config") { rules += try load(path: path).teamRules }
        for file in parsed.all("rules") {
            do {
                let loaded = try TeamRuleFile.load(path: file)
                rules += loaded.rules
                if !parsed.flag("quiet") {
                    for note in loaded.notes { Diagnostics.line(file, "note: " + note, io: io) }
                }
            } catch {
                throw UsageError(Escape.terminal(error.description), about: file)
            }
        }
        do { try TeamRules.install(rules) } catch {
            let source = rules.first { $0.id == error.rule }?.source ?? "--rules"
            throw UsageError(Escape.terminal(error.description), about: source)
        }
    }

    /// The internal flag `apply` sets when the config file was found by looking upward, not named.
    static let searchedFlag = "config-found-by-search"

    /// `sha256:`, `hmac:` or `loc:` and hex digits, as `verify` prints fingerprints.
    static func isFingerprint(_ s: String) -> Bool {
        guard let prefix = ["sha256:", "hmac:", "loc:"].first(where: { s.hasPrefix($0) }) else { return false }
        let hex = s.dropFirst(prefix.count)
        return !hex.isEmpty && hex.count <= 64 && hex.allSatisfy { $0.isHexDigit }
    }

    /// The options with the config's defaults filled in where the command line left them out:
    /// `--fail-on`, `--logs`, and `--config` (so `verify` and `report` read its redaction names and
    /// allowed fingerprints). Nothing changes when there is no config file.
    static func apply(to parsed: ParsedOptions, spec: CommandSpec, cwd: String = FileManager.default.currentDirectoryPath) throws
        -> ParsedOptions
    {
        let names = Set(spec.allOptions.map(\.name))
        guard names.contains("config") else { return parsed }
        guard let path = parsed.value("config") ?? find(from: cwd) else { return parsed }
        let searched = parsed.value("config") == nil
        let loaded = try load(path: path)
        let config = searched ? loaded.withoutLowerings : loaded
        var p = parsed
        if searched {
            p.values["config"] = [path]
            p.flags.insert(searchedFlag)
        }
        if p.value("fail-on") == nil, let f = config.failOn, names.contains("fail-on") { p.values["fail-on"] = [f] }
        if p.all("logs").isEmpty, !config.logs.isEmpty, names.contains("logs"), p.value("emit-query") == nil {
            p.values["logs"] = config.logs
        }
        return p
    }
}
