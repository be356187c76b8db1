import Foundation
import SiftCore

/// A team's own credential rule (`rules` in `.pbsift.json`, or a gitleaks config through `--rules`):
/// a pattern, the keywords that must stand near a match, an entropy floor, a severity, what to let
/// through, and examples the rule must find (and not find).
///
/// A rule runs where one of its keywords appears (as written, in lower case, upper case or
/// capitalised): the keywords are its prefilter, as in gitleaks, so a team's hundred rules cost a
/// pass over the bytes, not a pattern per value. The pattern runs over the line around the keyword
/// (at most `window` bytes each side) under a step budget: a pattern that backtracks past it stops,
/// and the bytes it did not finish are reported (`verify.bound`, exit status 2), never passed.
public struct TeamRule: Sendable, Equatable {
    /// `acme-api-key`: the finding's rule is `secret.team.acme-api-key`.
    public var id: String
    public var description: String
    /// An ICU regular expression (Go's and RE2's `(?P<name>…)` groups are accepted).
    public var pattern: String
    public var keywords: [String]
    /// The secret's Shannon entropy must reach this (bits per character), when set.
    public var entropy: Double?
    /// The capture group holding the secret; 0: the first group that matched, or the whole match.
    public var secretGroup: Int
    public var severity: Severity
    /// Patterns that let a secret through (or the whole match, or its line: each says which it reads).
    public var allow: [Allow]
    /// Words that let a secret through when it contains one (case-insensitive).
    public var stopwords: [String]
    /// Texts the rule must find, and texts it must not: checked when the rule is loaded.
    public var examples: [String]
    public var counterexamples: [String]
    /// The file the rule came from (for messages).
    public var source: String

    public enum AllowTarget: String, Sendable, Equatable { case secret, match, line }
    public struct Allow: Sendable, Equatable {
        public var pattern: String
        public var target: AllowTarget
        public init(pattern: String, target: AllowTarget = .secret) {
            self.pattern = pattern
            self.target = target
        }
    }

    public init(
        id: String, description: String = "", pattern: String, keywords: [String], entropy: Double? = nil,
        secretGroup: Int = 0, severity: Severity = .high, allow: [Allow] = [],
        stopwords: [String] = [], examples: [String] = [], counterexamples: [String] = [], source: String = ""
    ) {
        self.id = id
        self.description = description
        self.pattern = pattern
        self.keywords = keywords
        self.entropy = entropy
        self.secretGroup = secretGroup
        self.severity = severity
        self.allow = allow
        self.stopwords = stopwords
        self.examples = examples
        self.counterexamples = counterexamples
        self.source = source
    }

    /// The rule id of its findings.
    public var ruleId: String { "secret.team." + id }

    /// Bytes each side of a keyword the pattern sees (cut at line ends).
    static let window = 2048
    /// Progress calls of the matcher one window may take (about a millisecond each): past it, the
    /// window is reported unchecked by this rule.
    static let stepBudget = 400
}

/// Why a team rule cannot be used: a usage error naming the rule.
public struct TeamRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public let rule: String
    public let reason: String
    public init(rule: String, reason: String) {
        self.rule = rule
        self.reason = reason
    }
    /// A file-level error (the file cannot be read or parsed) has no rule.
    public var description: String { rule.isEmpty ? reason : "rule '\(rule)': \(reason)" }
}

/// A team rule ready to run: its patterns compiled once.
final class CompiledTeamRule: @unchecked Sendable {
    let rule: TeamRule
    let regex: NSRegularExpression
    let allow: [(NSRegularExpression, TeamRule.AllowTarget)]
    let stopwords: [String]
    /// Anchors for the engine: each keyword as written, lower, upper and capitalised (at least 2 bytes).
    let anchors: [String]
    /// The rule as `pbsift rules` and SARIF show it.
    let declaration: Rule

    init(_ rule: TeamRule) throws(TeamRuleError) {
        func fail(_ why: String) -> TeamRuleError { TeamRuleError(rule: rule.id, reason: why) }
        guard !rule.id.isEmpty, rule.id.utf8.count <= 80,
            rule.id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") })
        else { throw fail("an id is 1 to 80 letters, digits, '-', '_' or '.'") }
        self.rule = rule
        do { regex = try NSRegularExpression(pattern: CompiledTeamRule.icu(rule.pattern)) } catch {
            throw fail("the pattern does not compile")
        }
        var allow: [(NSRegularExpression, TeamRule.AllowTarget)] = []
        for a in rule.allow {
            do { allow.append((try NSRegularExpression(pattern: CompiledTeamRule.icu(a.pattern)), a.target)) } catch {
                throw fail("an allowlist pattern does not compile: \(a.pattern.prefix(60))")
            }
        }
        self.allow = allow
        stopwords = rule.stopwords.map { $0.lowercased() }.filter { !$0.isEmpty }
        guard rule.secretGroup >= 0, rule.secretGroup <= regex.numberOfCaptureGroups else {
            throw fail("secretGroup \(rule.secretGroup), but the pattern has \(regex.numberOfCaptureGroups) group(s)")
        }
        if let e = rule.entropy, !(e >= 0 && e <= 8) { throw fail("entropy must be between 0 and 8 bits a character") }
        var keywords = rule.keywords.filter { !$0.isEmpty }
        // No keyword: the pattern's literal start stands in (`acme_[a-z0-9]{32}` runs where `acme_` is).
        if keywords.isEmpty, let lit = CompiledTeamRule.literalPrefix(rule.pattern), lit.utf8.count >= 3 {
            keywords = [String(lit.prefix(32))]
        }
        guard !keywords.isEmpty else {
            throw fail(
                "no keyword, and the pattern starts with no literal of 3 characters or more: pbsift runs a rule where one of its keywords appears"
            )
        }
        for k in keywords where k.utf8.count < 2 { throw fail("the keyword '\(k)' is shorter than 2 bytes") }
        for k in keywords where k.utf8.count > 64 { throw fail("a keyword is longer than 64 bytes") }
        var anchors: [String] = []
        for k in keywords {
            // (A case mapping can shorten a keyword, `K` U+212A to `k`: the engine's anchors are 2 bytes or more.)
            for v in [k, k.lowercased(), k.uppercased(), k.prefix(1).uppercased() + k.dropFirst().lowercased()]
            where v.utf8.count >= 2 && !anchors.contains(v) {
                anchors.append(v)
            }
        }
        self.anchors = anchors
        declaration = Rule(
            rule.ruleId, rule.severity, rule.description.isEmpty ? "A value matches the team rule \(rule.id)" : rule.description,
            detail:
                "Team rule from \(rule.source.isEmpty ? "the config" : rule.source): runs where one of its keywords appears (\(keywords.prefix(5).joined(separator: ", "))).",
            help: "Rotate the credential, then find which code path recorded it.")
    }

    /// Go / RE2 syntax ICU spells otherwise: named groups `(?P<name>…)`.
    static func icu(_ p: String) -> String { p.replacingOccurrences(of: "(?P<", with: "(?<") }

    /// The literal characters a pattern starts with (no metacharacter, no flag group), if any.
    static func literalPrefix(_ p: String) -> String? {
        var out = ""
        for c in p {
            if "\\^$.|?*+()[]{}".contains(c) { break }
            out.append(c)
        }
        // A quantifier after the last literal makes it optional.
        if let next = p.dropFirst(out.count).first, "?*{".contains(next), !out.isEmpty { out.removeLast() }
        return out.isEmpty ? nil : out
    }

    /// What one run of the pattern over a text found.
    enum Outcome {
        case found(Range<Int>)
        case none
        /// The pattern ran out of its step budget: the text is not checked by this rule.
        case unfinished
    }

    /// The secrets in `text` (UTF-8 bytes) that pass the rule's filters, as byte ranges (at most
    /// `maxFound`), and whether the pattern stopped at its step budget before the end.
    func scan(_ text: [UInt8]) -> (found: [Range<Int>], unfinished: Bool) {
        // ICU reads UTF-16: non-ASCII bytes of invalid UTF-8 become `?` so that offsets map one to one.
        let s: String
        if let valid = String(validating: text, as: UTF8.self) {
            s = valid
        } else {
            s = String(decoding: text.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        }
        let ns = s as NSString
        var steps = 0
        var unfinished = false
        var found: [Range<Int>] = []
        regex.enumerateMatches(in: s, options: [.reportProgress], range: NSRange(location: 0, length: ns.length)) { m, _, stop in
            guard let m else {
                steps += 1
                if steps > TeamRule.stepBudget {
                    unfinished = true
                    stop.pointee = true
                }
                return
            }
            guard let r = self.secretRange(m), r.length > 0, let bytes = CompiledTeamRule.byteRange(r, in: s),
                self.passes(s, ns, secret: r, match: m.range)
            else { return }
            found.append(bytes)
            if found.count >= CompiledTeamRule.maxFound { stop.pointee = true }
        }
        return (found, unfinished)
    }

    /// Secrets kept from one window.
    static let maxFound = 64

    /// The first secret in `text` that ends after `after` (or the last before it).
    func find(in text: [UInt8], after: Int = 0) -> Outcome {
        CompiledTeamRule.pick(scan(text), after: after)
    }

    static func pick(_ r: (found: [Range<Int>], unfinished: Bool), after: Int) -> Outcome {
        if let m = r.found.first(where: { $0.upperBound > after }) ?? r.found.last { return .found(m) }
        return r.unfinished ? .unfinished : .none
    }

    private func secretRange(_ m: NSTextCheckingResult) -> NSRange? {
        if rule.secretGroup > 0 {
            let r = m.range(at: rule.secretGroup)
            return r.location == NSNotFound ? nil : r
        }
        if m.numberOfRanges > 1 {
            for g in 1..<m.numberOfRanges where m.range(at: g).location != NSNotFound && m.range(at: g).length > 0 { return m.range(at: g) }
        }
        return m.range
    }

    private func passes(_ s: String, _ ns: NSString, secret: NSRange, match: NSRange) -> Bool {
        let value = ns.substring(with: secret)
        if let floor = rule.entropy, CompiledTeamRule.entropy(value) < floor { return false }
        if !stopwords.isEmpty {
            let lower = value.lowercased()
            if stopwords.contains(where: { lower.contains($0) }) { return false }
        }
        for (re, on) in allow {
            let target: String
            switch on {
            case .secret: target = value
            case .match: target = ns.substring(with: match)
            case .line: target = s
            }
            // An allowlist pattern past its budget lets nothing through: the finding stands.
            if CompiledTeamRule.matches(re, target) == true { return false }
        }
        return true
    }

    /// Whether `re` matches somewhere in `text`; nil when it ran out of its step budget first.
    static func matches(_ re: NSRegularExpression, _ text: String) -> Bool? {
        var steps = 0
        var found: Bool? = false
        re.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(location: 0, length: (text as NSString).length)) {
            m, _, stop in
            if m != nil {
                found = true
                stop.pointee = true
            } else {
                steps += 1
                if steps > TeamRule.stepBudget {
                    found = nil
                    stop.pointee = true
                }
            }
        }
        return found
    }

    /// Shannon entropy in bits per character.
    static func entropy(_ s: String) -> Double {
        var counts: [Character: Int] = [:]
        for c in s { counts[c, default: 0] += 1 }
        let n = Double(s.count)
        guard n > 0 else { return 0 }
        return counts.values.reduce(0) { h, k in
            let p = Double(k) / n
            return h - p * log2(p)
        }
    }

    /// A UTF-16 range of `s` as a range of its UTF-8 bytes.
    static func byteRange(_ r: NSRange, in s: String) -> Range<Int>? {
        guard let range = Range(r, in: s) else { return nil }
        let lo = s.utf8.distance(from: s.startIndex, to: range.lowerBound)
        let hi = lo + s.utf8.distance(from: range.lowerBound, to: range.upperBound)
        return lo..<hi
    }

    /// The rule's detector: it runs where a keyword stands, over the line around it.
    func detector() -> Detector {
        let r = rule
        // The team's own filters (entropy, stopwords, allowlists) decide; pbsift's placeholder
        // heuristics do not lower a team rule's findings.
        var d = Detector(
            "team." + r.id, r.description.isEmpty ? r.id + " credential" : r.description, r.severity, anchors: anchors,
            declaration: declaration
        ) { [self] t, p, len in
            // The line around the keyword, at most `window` bytes each side.
            var lo = p, hi = p + len
            let floor = Swift.max(0, p - TeamRule.window), ceiling = Swift.min(t.count, p + len + TeamRule.window)
            while lo > floor && t[lo - 1] != 0x0A { lo -= 1 }
            while hi < ceiling && t[hi] != 0x0A { hi += 1 }
            // Keywords repeated in one line run the pattern once; a buffer in which it ran out of its
            // budget is not run again (its later keywords are reported unchecked at once): a hostile
            // value costs one budget, not one per keyword.
            let memo = TeamRuleMemo.of(self)
            let outcome: Outcome
            if memo.overran(in: t.b) {
                outcome = .unfinished
            } else if let cached = memo.cached(t.b, lo..<hi) {
                outcome = CompiledTeamRule.pick(cached, after: p - lo)
            } else {
                let r = self.scan(Array(t.b[lo..<hi]))
                memo.keep(t.b, lo..<hi, r)
                outcome = CompiledTeamRule.pick(r, after: p - lo)
            }
            switch outcome {
            case .found(let range): return DetMatch(start: lo + range.lowerBound, end: lo + range.upperBound)
            case .none: return nil
            case .unfinished:
                return DetMatch(
                    start: p, end: p,
                    unchecked:
                        "the team rule \(r.id) stopped at its step budget (\(TeamRule.stepBudget)) near a keyword; those bytes were not checked by it"
                )
            }
        }
        d.neverPlaceholder = true
        return d
    }

    /// Every example found and no counterexample: else the rule is not what its author meant.
    func checkExamples() throws(TeamRuleError) {
        for (k, e) in rule.examples.enumerated() {
            guard case .found = findInExample(e) else {
                throw TeamRuleError(rule: rule.id, reason: "does not find its example \(k + 1)")
            }
        }
        for (k, e) in rule.counterexamples.enumerated() {
            if case .found = findInExample(e) { throw TeamRuleError(rule: rule.id, reason: "finds its counterexample \(k + 1)") }
        }
    }

    private func findInExample(_ e: String) -> Outcome {
        let lower = e.lowercased()
        guard anchors.contains(where: { lower.contains($0.lowercased()) }) else { return .none }
        return find(in: Array(e.utf8))
    }
}

/// What one thread last ran a team rule's pattern on (per rule, in the thread's dictionary): the window
/// and what it found, and the buffer where the pattern ran out of its budget. A buffer is known by its
/// address, length and a digest of its bytes (the window's whole; the buffer's first and last 256).
final class TeamRuleMemo {
    private var window: (base: UnsafePointer<UInt8>?, count: Int, range: Range<Int>, digest: UInt64) = (nil, 0, 0..<0, 0)
    private var result: (found: [Range<Int>], unfinished: Bool) = ([], false)
    private var overrun: (base: UnsafePointer<UInt8>?, count: Int, digest: UInt64) = (nil, 0, 0)

    static func of(_ rule: CompiledTeamRule) -> TeamRuleMemo {
        let key = "pbsift.team-rule." + String(UInt(bitPattern: ObjectIdentifier(rule).hashValue))
        let dict = Thread.current.threadDictionary
        if let m = dict[key] as? TeamRuleMemo { return m }
        let m = TeamRuleMemo()
        dict[key] = m
        return m
    }

    private static func digest(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in r {
            h ^= UInt64(b[i])
            h = h &* 0x100_0000_01b3
        }
        return h
    }

    private static func edges(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let n = b.count
        return digest(b, 0..<min(n, 256)) ^ (digest(b, max(0, n - 256)..<n) &* 31)
    }

    func cached(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> (found: [Range<Int>], unfinished: Bool)? {
        guard window.base == b.baseAddress, window.count == b.count, window.range == r,
            window.digest == TeamRuleMemo.digest(b, r)
        else { return nil }
        return result
    }

    func keep(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>, _ found: (found: [Range<Int>], unfinished: Bool)) {
        window = (b.baseAddress, b.count, r, TeamRuleMemo.digest(b, r))
        result = found
        if found.unfinished { overrun = (b.baseAddress, b.count, TeamRuleMemo.edges(b)) }
    }

    func overran(in b: UnsafeBufferPointer<UInt8>) -> Bool {
        overrun.base != nil && overrun.base == b.baseAddress && overrun.count == b.count && overrun.digest == TeamRuleMemo.edges(b)
    }
}

/// The team rules this process runs (installed once, from the config and `--rules`, before any
/// check): every engine built after includes them, so verify, scrub and every command's masking
/// find the same values.
public enum TeamRules {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var compiled: [CompiledTeamRule] = []

    /// Compiles and checks `rules` (a pattern that does not compile, a rule that misses its example,
    /// two rules with one id: `TeamRuleError`) and makes them the process's team rules.
    public static func install(_ rules: [TeamRule]) throws(TeamRuleError) {
        // The same rules again (every command installs what it was given, most often none): nothing to rebuild.
        if rules == installed { return }
        let out = try compile(rules)
        lock.lock()
        compiled = out
        lock.unlock()
        DetectorEngine.forgetShared()
    }

    /// Compiles and checks rules without installing them.
    static func compile(_ rules: [TeamRule]) throws(TeamRuleError) -> [CompiledTeamRule] {
        var out: [CompiledTeamRule] = []
        var ids = Set<String>()
        for r in rules {
            guard ids.insert(r.id).inserted else { throw TeamRuleError(rule: r.id, reason: "two rules have this id") }
            let c = try CompiledTeamRule(r)
            try c.checkExamples()
            out.append(c)
        }
        return out
    }

    /// How many of `rules` find a secret in `text` (compiled and checked first; nothing installed):
    /// what the fuzz target and the tests run a file's rules with.
    public static func count(_ rules: [TeamRule], in text: String) throws(TeamRuleError) -> Int {
        let bytes = Array(text.utf8)
        return try compile(rules).filter { if case .found = $0.find(in: bytes) { return true } else { return false } }.count
    }

    /// The installed rules' detectors.
    static var detectors: [Detector] {
        lock.lock()
        defer { lock.unlock() }
        return compiled.map { $0.detector() }
    }

    /// The installed rules as `pbsift rules` and SARIF show them.
    public static var declarations: [Rule] {
        lock.lock()
        defer { lock.unlock() }
        return compiled.map(\.declaration)
    }

    /// The installed rules.
    public static var installed: [TeamRule] {
        lock.lock()
        defer { lock.unlock() }
        return compiled.map(\.rule)
    }
}
