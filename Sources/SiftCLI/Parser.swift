import Foundation

/// Turns one subcommand's argv into `ParsedOptions`: syntax only, nothing resolved.
///
/// Conventions of swift-argument-parser: `--opt=v`, `--opt v`, `-o v` (and `-ov`), bundled short
/// flags `-qf json`, `--` ends options, a lone `-` is a positional (standard input), a repeated
/// scalar option keeps its last value, repeatable options keep every value, and `--help`/`-h`
/// anywhere before `--` asks for help.
public struct ArgvParser: Sendable {
    /// What parsing produced.
    public enum Result: Sendable {
        /// `--help` or `-h` was given.
        case help
        case options(ParsedOptions)
    }

    public let spec: CommandSpec
    public let table: [OptionSpec]

    public init(spec: CommandSpec) {
        self.spec = spec
        self.table = spec.allOptions
    }

    /// Parses `args` (everything after the subcommand name).
    public func parse(_ args: [String]) throws -> Result {
        for a in args {
            if a == "--" { break }
            if a == "--help" || a == "-h" { return .help }
        }
        var parsed = ParsedOptions()
        var i = 0
        var onlyPositionals = false
        func takeValue(_ opt: OptionSpec, inline: String?) throws -> String {
            if let inline { return inline }
            guard i + 1 < args.count, !(args[i + 1].hasPrefix("-") && args[i + 1] != "-") else {
                throw UsageError("missing value", about: opt.display)
            }
            i += 1
            return args[i]
        }
        func store(_ opt: OptionSpec, _ value: String?) throws {
            guard let value else {
                parsed.flags.insert(opt.name)
                return
            }
            guard let typed = opt.kind.parse(value) else { throw UsageError.invalid(value, for: opt) }
            if opt.repeatable {
                parsed.values[opt.name, default: []].append(value)
                parsed.typed[opt.name, default: []].append(typed)
            } else {
                parsed.values[opt.name] = [value]
                parsed.typed[opt.name] = [typed]
            }
        }
        while i < args.count {
            let a = args[i]
            if onlyPositionals || a == "-" || !a.hasPrefix("-") {
                parsed.positionals.append(a)
            } else if a == "--" {
                onlyPositionals = true
            } else if a.hasPrefix("--") {
                let body = a.dropFirst(2)
                let name: String
                var inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                }
                guard let opt = table.first(where: { $0.name == name }) else {
                    throw Self.unknownOption("--" + name, candidates: table.map { "--" + $0.name })
                }
                if opt.valueName == nil {
                    if inline != nil { throw UsageError("takes no value", about: "--" + name) }
                    try store(opt, nil)
                } else {
                    try store(opt, try takeValue(opt, inline: inline))
                }
            } else {
                let chars = Array(a.dropFirst())
                var j = 0
                while j < chars.count {
                    let c = chars[j]
                    guard let opt = table.first(where: { $0.short == c }) else {
                        var candidates = table.compactMap { $0.short.map { "-" + String($0) } }
                        if chars.count > 1 { candidates = table.map { "--" + $0.name } }
                        let typed = chars.count > 1 && j == 0 ? "-" + String(chars) : "-" + String(c)
                        throw Self.unknownOption(typed, candidates: candidates)
                    }
                    if opt.valueName == nil {
                        try store(opt, nil)
                        j += 1
                    } else {
                        let rest = j + 1 < chars.count ? String(chars[(j + 1)...]) : nil
                        try store(opt, try takeValue(opt, inline: rest))
                        break
                    }
                }
            }
            i += 1
        }
        try assignArguments(&parsed)
        return .options(parsed)
    }

    /// Hands positionals to the spec's arguments in order; checks counts and allowed values.
    func assignArguments(_ parsed: inout ParsedOptions) throws {
        // Too few: the ones given go to the first required arguments, and the first left without
        // one is named (`pbsift diff a.zip`: '<after>', not '<before>').
        let required = spec.arguments.filter { !$0.optional }
        if parsed.positionals.count < required.count {
            throw UsageError("missing argument '\(required[parsed.positionals.count].usage)'")
        }
        var rest = parsed.positionals[...]
        for (k, arg) in spec.arguments.enumerated() {
            let laterRequired = spec.arguments[(k + 1)...].filter { !$0.optional }.count
            var take: ArraySlice<String>
            if arg.variadic {
                take = rest.dropLast(min(laterRequired, rest.count))
            } else {
                take = rest.prefix(rest.count > laterRequired ? 1 : 0)
            }
            if take.isEmpty && !arg.optional {
                throw UsageError("missing argument '\(arg.usage)'")
            }
            if let allowed = arg.allowed {
                for v in take where !allowed.contains(v) {
                    throw UsageError.invalid(v, for: "<\(arg.name)>", expected: "one of " + CommonOptions.quotedList(allowed))
                }
            }
            parsed.arguments[arg.name] = Array(take)
            rest = rest.dropFirst(take.count)
        }
        if let extra = rest.first {
            throw UsageError("unexpected argument '\(extra)'")
        }
    }

    /// `pbsift: --formt: unknown option; did you mean '--format'?`
    static func unknownOption(_ typed: String, candidates: [String]) -> UsageError {
        var reason = "unknown option"
        if let best = Suggest.closest(to: typed, in: candidates) { reason += "; did you mean '\(best)'?" }
        return UsageError(reason, about: typed)
    }
}

/// "Did you mean" by edit distance.
public enum Suggest {
    /// The candidate nearest to `typed`, when it is near enough to be a likely typo (or `typed` is a prefix of it).
    public static func closest(to typed: String, in candidates: [String]) -> String? {
        var best: (String, Int)?
        for c in candidates {
            let d = distance(typed, c)
            if let b = best, b.1 <= d { continue }
            best = (c, d)
        }
        guard let (name, d) = best else { return nil }
        let stripped = typed.drop(while: { $0 == "-" })
        // A one-letter typo is as close to every short option as to any other: no guess.
        guard stripped.count >= 2 else { return nil }
        let limit = max(2, stripped.count / 3)
        if d <= limit { return name }
        if stripped.count >= 2, let prefixed = candidates.first(where: { $0.drop(while: { $0 == "-" }).hasPrefix(stripped) }) {
            return prefixed
        }
        return nil
    }

    /// Levenshtein distance over characters (inputs here are option names: short).
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.prefix(256)), y = Array(b.prefix(256))
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var prev = Array(0...y.count)
        var cur = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            cur[0] = i
            for j in 1...y.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&prev, &cur)
        }
        return prev[y.count]
    }
}
