import Foundation
import SiftCore

/// Reads a team's rules: a gitleaks config (TOML: `[[rules]]` with `id`, `regex`, `keywords`, `entropy`,
/// `secretGroup`, and allowlists), or pbsift's JSON form (an array of rules, or `{"rules": [...]}`, as
/// the config file's `rules` holds them). What a file says that pbsift does not apply to an export
/// (file path rules, commit allowlists, `[extend]`) comes back as notes, never dropped in silence.
public enum TeamRuleFile {
    public struct Loaded: Sendable, Equatable {
        public var rules: [TeamRule]
        public var notes: [String]
    }

    /// The file's rules; a file that cannot be read or parsed, or a rule without what it needs, is an error naming it.
    public static func load(path: String) throws(TeamRuleError) -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TeamRuleError(rule: "", reason: "cannot read the rule file")
        }
        guard data.count <= 4 << 20 else { throw TeamRuleError(rule: "", reason: "larger than 4 MiB") }
        guard let text = String(validating: Array(data), as: UTF8.self) else {
            throw TeamRuleError(rule: "", reason: "not UTF-8 text")
        }
        return try parse(text, source: path)
    }

    /// A rule file's text: JSON when it starts with `{` or a `[` that is no TOML table header, else TOML.
    public static func parse(_ text: String, source path: String) throws(TeamRuleError) -> Loaded {
        let first = text.first(where: { !$0.isWhitespace })
        if first == "{" || (first == "[" && !looksLikeTableHeader(text)) {
            let root: JSONValue
            do { root = try JSONDocument(bytes: Array(text.utf8)).root } catch {
                throw TeamRuleError(rule: "", reason: "not JSON: \(error)")
            }
            guard let list = root.isObject ? root["rules"] : root else {
                throw TeamRuleError(rule: "", reason: "a JSON rule file is an array of rules, or an object with 'rules'")
            }
            return Loaded(rules: try rules(json: list, source: path), notes: [])
        }
        return try gitleaks(text, source: path)
    }

    /// `[allowlist]` or `[rules]` on the first line: TOML, not a JSON array.
    private static func looksLikeTableHeader(_ text: String) -> Bool {
        guard
            let line = text.split(separator: "\n", omittingEmptySubsequences: true).first(where: {
                !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
            })
        else { return false }
        let t = line.trimmingCharacters(in: .whitespaces)
        return t.hasPrefix("[") && t.hasSuffix("]") && !t.contains("{") && !t.contains("\"")
    }

    // MARK: pbsift's JSON form

    /// Rules in pbsift's JSON form: `[{"id", "pattern", "keywords", "entropy", "secretGroup", "severity",
    /// "description", "allowlist": {"regexes", "regexTarget", "stopwords"}, "examples", "counterexamples"}]`.
    /// Each is read as a gitleaks rule is (`rule(_:at:source:notes:)`), `pattern` standing for `regex`;
    /// a key outside these is refused.
    public static func rules(json list: JSONValue, source: String) throws(TeamRuleError) -> [TeamRule] {
        guard list.isArray else { throw TeamRuleError(rule: "", reason: "'rules' must be an array of rule objects") }
        let known = [
            "id", "description", "pattern", "regex", "keywords", "entropy", "secretGroup", "severity", "allowlist", "examples",
            "counterexamples"
        ]
        var out: [TeamRule] = []
        var notes: [String] = []
        for (k, v) in list.elements.enumerated() {
            let name = v["id"]?.string ?? "#\(k + 1)"
            guard v.isObject, case .table(var table) = toml(v) else { throw TeamRuleError(rule: name, reason: "a rule is an object") }
            for (key, _) in v.members where !known.contains(key) {
                throw TeamRuleError(rule: name, reason: "unknown key '\(key)'; known: \(known.joined(separator: ", "))")
            }
            if let pattern = table["pattern"] { table.values["regex"] = pattern }
            if let rule = try rule(table, at: k, source: source, notes: &notes) { out.append(rule) }
        }
        return out
    }

    /// A JSON value as the TOML value of the same shape (a null as an empty array: a value of no kind
    /// a rule's keys take, so it is refused as the wrong kind, as in the TOML form).
    private static func toml(_ v: JSONValue) -> TOML.Value {
        if let s = v.string { return .string(s) }
        if v.isObject {
            var t = TOML.Table()
            for (k, m) in v.members { t.set(k, toml(m)) }
            return .table(t)
        }
        if v.isArray { return .array(v.elements.map(toml)) }
        if let b = v.bool { return .bool(b) }
        if let d = v.double { return .number(d) }
        return .array([])
    }

    private static func allowTarget(_ s: String?, rule: String) throws(TeamRuleError) -> TeamRule.AllowTarget {
        guard let s else { return .secret }
        guard let t = TeamRule.AllowTarget(rawValue: s) else {
            throw TeamRuleError(rule: rule, reason: "regexTarget must be secret, match or line")
        }
        return t
    }

    // MARK: gitleaks (TOML)

    /// A gitleaks config. Its rules have no severity: each is `high` (the gate's threshold) unless the
    /// rule says `severity`. `examples` and `counterexamples` may be added to a rule and are checked.
    static func gitleaks(_ text: String, source: String) throws(TeamRuleError) -> Loaded {
        let doc: TOML.Table
        do { doc = try TOML.parse(text) } catch { throw TeamRuleError(rule: "", reason: error.description) }
        var notes: [String] = []
        if doc["extend"] != nil {
            notes.append("[extend] is not followed: gitleaks' own default rules are not loaded (pbsift's detectors run)")
        }
        // Global allowlists: `[allowlist]` (before 8.25) and `[[allowlists]]`.
        var global: [TeamRule.Allow] = []
        var globalStop: [String] = []
        for table in tables(doc["allowlist"]) + tables(doc["allowlists"]) {
            let (a, s) = try allowlist(table, rule: "allowlist", notes: &notes)
            global += a
            globalStop += s
        }
        var out: [TeamRule] = []
        for (k, r) in tables(doc["rules"]).enumerated() {
            guard var rule = try rule(r, at: k, source: source, notes: &notes) else { continue }
            rule.allow += global
            rule.stopwords += globalStop
            out.append(rule)
        }
        return Loaded(rules: out, notes: notes)
    }

    /// One rule of either form (the `k`-th of its file); nil for a rule of file paths only, which an
    /// export has none of (said in `notes`).
    private static func rule(_ r: TOML.Table, at k: Int, source: String, notes: inout [String]) throws(TeamRuleError) -> TeamRule? {
        let id = r["id"]?.string ?? "#\(k + 1)"
        func fail(_ why: String) -> TeamRuleError { TeamRuleError(rule: id, reason: why) }
        guard r["id"]?.string != nil else { throw fail("a rule needs an 'id'") }
        guard let regex = r["regex"]?.string else {
            if r["path"] != nil {
                notes.append("rule '\(id)' matches file paths only: an export has none to match, not run")
                return nil
            }
            throw fail("a rule needs a 'regex' (or 'pattern')")
        }
        if r["path"] != nil { notes.append("rule '\(id)': its 'path' is not applied (an export has no file paths)") }
        var rule = TeamRule(id: id, pattern: regex, keywords: try stringList(r["keywords"], key: "keywords", rule: id), source: source)
        rule.description = r["description"]?.string ?? ""
        if let e = r["entropy"] {
            guard let d = e.number else { throw fail("'entropy' must be a number") }
            rule.entropy = d
        }
        if let g = r["secretGroup"] {
            guard let d = g.number, d >= 0, d <= 99, d == d.rounded() else { throw fail("'secretGroup' must be a whole number") }
            rule.secretGroup = Int(d)
        }
        if let s = r["severity"] {
            guard let word = s.string, let sev = Severity(rawValue: word) else {
                throw fail("'severity' must be one of info, low, medium, high, critical")
            }
            rule.severity = sev
        }
        for key in ["allowlist", "allowlists"] {
            guard let v = r[key] else { continue }
            let found = tables(v)
            // Anything else (a string, an array holding one) would be dropped without a word.
            let allTables: Bool
            switch v {
            case .table: allTables = true
            case .array(let a): allTables = found.count == a.count
            default: allTables = false
            }
            guard allTables else { throw fail("'\(key)' must be a table (an object) or an array of them") }
            for table in found {
                let (a, s) = try allowlist(table, rule: id, notes: &notes)
                rule.allow += a
                rule.stopwords += s
            }
        }
        rule.examples = try stringList(r["examples"], key: "examples", rule: id)
        rule.counterexamples = try stringList(r["counterexamples"], key: "counterexamples", rule: id)
        return rule
    }

    private static func allowlist(_ t: TOML.Table, rule: String, notes: inout [String]) throws(TeamRuleError)
        -> ([TeamRule.Allow], [String])
    {
        let target = try allowTarget(t["regexTarget"]?.string, rule: rule)
        let regexes = try stringList(t["regexes"], key: "regexes", rule: rule)
        let stop = try stringList(t["stopwords"], key: "stopwords", rule: rule)
        for key in ["paths", "commits"] where t[key] != nil {
            notes.append("\(rule): the allowlist's '\(key)' is not applied (an export has no \(key == "paths" ? "file paths" : "commits"))")
        }
        if t["condition"]?.string?.uppercased() == "AND" && (t["paths"] != nil || t["commits"] != nil) {
            // AND with a part pbsift cannot test: the allowlist never holds, nothing is let through.
            return ([], [])
        }
        return (regexes.map { TeamRule.Allow(pattern: $0, target: target) }, stop)
    }

    private static func tables(_ v: TOML.Value?) -> [TOML.Table] {
        switch v {
        case .table(let t)?: return [t]
        case .array(let a)?: return a.compactMap { if case .table(let t) = $0 { return t } else { return nil } }
        default: return []
        }
    }

    private static func stringList(_ v: TOML.Value?, key: String, rule: String) throws(TeamRuleError) -> [String] {
        guard let v else { return [] }
        guard case .array(let a) = v else { throw TeamRuleError(rule: rule, reason: "'\(key)' must be an array of strings") }
        var out: [String] = []
        for e in a {
            guard let s = e.string else { throw TeamRuleError(rule: rule, reason: "'\(key)' must be an array of strings") }
            out.append(s)
        }
        return out
    }
}

/// The part of TOML a gitleaks config uses: tables, arrays of tables, dotted keys, strings (basic,
/// literal, multi-line), numbers, booleans, arrays and inline tables, comments.
enum TOML {
    indirect enum Value: Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case array([Value])
        case table(Table)

        var string: String? { if case .string(let s) = self { s } else { nil } }
        var number: Double? { if case .number(let d) = self { d } else { nil } }
    }

    struct Table: Equatable {
        var keys: [String] = []
        var values: [String: Value] = [:]
        subscript(_ k: String) -> Value? { values[k] }
        mutating func set(_ k: String, _ v: Value) {
            if values[k] == nil { keys.append(k) }
            values[k] = v
        }
    }

    struct ParseError: Error, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    static func parse(_ text: String) throws(ParseError) -> Table {
        var p = Parser(Array(text.unicodeScalars))
        return try p.document()
    }

    private struct Parser {
        let s: [Unicode.Scalar]
        var i = 0
        var line = 1
        /// Arrays and inline tables open around the value being read (at most `maxDepth`).
        var depth = 0
        static let maxDepth = 32
        init(_ s: [Unicode.Scalar]) { self.s = s }

        func fail(_ why: String) -> ParseError { ParseError(line: line, reason: why) }
        var atEnd: Bool { i >= s.count }
        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }
        mutating func advance() {
            if s[i] == "\n" { line += 1 }
            i += 1
        }
        mutating func spaces() { while let c = peek(), c == " " || c == "\t" { advance() } }
        /// White space, newlines and comments.
        mutating func blank() {
            while let c = peek() {
                if c == " " || c == "\t" || c == "\n" || c == "\r" {
                    advance()
                } else if c == "#" {
                    while let d = peek(), d != "\n" { advance() }
                } else {
                    return
                }
            }
        }
        mutating func endOfLine() throws(ParseError) {
            spaces()
            if peek() == "#" { while let d = peek(), d != "\n" { advance() } }
            if peek() == "\r" { advance() }
            guard atEnd || peek() == "\n" else { throw fail("unexpected text after a value") }
        }

        mutating func document() throws(ParseError) -> Table {
            var root = Table()
            // The path of the table being filled, and for arrays of tables, which element.
            var current: [String] = []
            while true {
                blank()
                guard let c = peek() else { break }
                if c == "[" {
                    let array = peek(1) == "["
                    advance()
                    if array { advance() }
                    spaces()
                    let path = try keyPath()
                    spaces()
                    guard peek() == "]" else { throw fail("a table header ends with ]") }
                    advance()
                    if array {
                        guard peek() == "]" else { throw fail("an array-of-tables header ends with ]]") }
                        advance()
                    }
                    try endOfLine()
                    try Parser.open(&root, path, array: array, line: line)
                    current = path
                } else {
                    let path = try keyPath()
                    spaces()
                    guard peek() == "=" else { throw fail("expected = after a key") }
                    advance()
                    spaces()
                    let v = try value()
                    try endOfLine()
                    try Parser.assign(&root, current + path, v, line: line)
                }
            }
            return root
        }

        mutating func keyPath() throws(ParseError) -> [String] {
            var parts: [String] = []
            while true {
                spaces()
                if peek() == "\"" || peek() == "'" {
                    guard case .string(let k) = try value() else { throw fail("bad key") }
                    parts.append(k)
                } else {
                    var k = ""
                    while let c = peek(), c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "-" {
                        k.unicodeScalars.append(c)
                        advance()
                    }
                    guard !k.isEmpty else { throw fail("expected a key") }
                    parts.append(k)
                }
                spaces()
                guard peek() == "." else { return parts }
                guard parts.count < Parser.maxDepth else { throw fail("a key of more than \(Parser.maxDepth) parts") }
                advance()
            }
        }

        mutating func value() throws(ParseError) -> Value {
            guard let c = peek() else { throw fail("expected a value") }
            switch c {
            case "\"", "'":
                let triple = peek(1) == c && peek(2) == c
                let literal = c == "'"
                advance()
                if triple {
                    advance()
                    advance()
                    // A newline right after the opening quotes is not part of the string.
                    if peek() == "\r" { advance() }
                    if peek() == "\n" { advance() }
                }
                var out = ""
                while true {
                    guard let d = peek() else { throw fail("a string is not closed") }
                    if d == c && (!triple || (peek(1) == c && peek(2) == c)) {
                        advance()
                        if triple {
                            advance()
                            advance()
                            // Up to two more quotes belong to the string (`''''a''''`).
                            while peek() == c && peek(1) != nil && out.count < Int.max {
                                if peek(1) == c && peek(2) == c { break }
                                out.unicodeScalars.append(c)
                                advance()
                                break
                            }
                        }
                        return .string(out)
                    }
                    if !triple && d == "\n" { throw fail("a string is not closed on its line") }
                    if !literal && d == "\\" {
                        advance()
                        guard let e = peek() else { throw fail("a string is not closed") }
                        advance()
                        switch e {
                        case "n": out += "\n"
                        case "t": out += "\t"
                        case "r": out += "\r"
                        case "b": out += "\u{8}"
                        case "f": out += "\u{C}"
                        case "\"": out += "\""
                        case "\\": out += "\\"
                        case "u", "U":
                            let n = e == "u" ? 4 : 8
                            var hex = ""
                            for _ in 0..<n {
                                guard let h = peek() else { throw fail("a \\u escape is cut") }
                                hex.unicodeScalars.append(h)
                                advance()
                            }
                            guard let v = UInt32(hex, radix: 16), let u = Unicode.Scalar(v) else { throw fail("a bad \\u escape") }
                            out.unicodeScalars.append(u)
                        case "\n", " ", "\t", "\r":
                            // A line-ending backslash in a multi-line string trims the white space after it.
                            guard triple else { throw fail("an unknown escape") }
                            while let w = peek(), w == " " || w == "\t" || w == "\n" || w == "\r" { advance() }
                        default: throw fail("an unknown escape \\\(e)")
                        }
                        continue
                    }
                    out.unicodeScalars.append(d)
                    advance()
                }
            case "[":
                depth += 1
                defer { depth -= 1 }
                guard depth <= Parser.maxDepth else { throw fail("arrays nested deeper than \(Parser.maxDepth)") }
                advance()
                var items: [Value] = []
                while true {
                    blank()
                    if peek() == "]" {
                        advance()
                        return .array(items)
                    }
                    items.append(try value())
                    blank()
                    if peek() == "," {
                        advance()
                    } else if peek() != "]" {
                        throw fail("an array's items are separated by commas")
                    }
                    guard items.count <= 100_000 else { throw fail("an array of more than 100000 items") }
                }
            case "{":
                depth += 1
                defer { depth -= 1 }
                guard depth <= Parser.maxDepth else { throw fail("tables nested deeper than \(Parser.maxDepth)") }
                advance()
                var t = Table()
                spaces()
                if peek() == "}" {
                    advance()
                    return .table(t)
                }
                while true {
                    let path = try keyPath()
                    spaces()
                    guard peek() == "=" else { throw fail("expected = in an inline table") }
                    advance()
                    spaces()
                    let v = try value()
                    try Parser.assignIn(&t, path, v, line: line)
                    spaces()
                    if peek() == "," {
                        advance()
                        spaces()
                    } else if peek() == "}" {
                        advance()
                        return .table(t)
                    } else {
                        throw fail("an inline table's pairs are separated by commas")
                    }
                }
            default:
                var word = ""
                while let d = peek(), !(d == "," || d == "]" || d == "}" || d == " " || d == "\t" || d == "\n" || d == "\r" || d == "#") {
                    word.unicodeScalars.append(d)
                    advance()
                }
                if word == "true" { return .bool(true) }
                if word == "false" { return .bool(false) }
                if let d = Double(word.replacingOccurrences(of: "_", with: "")), d.isFinite { return .number(d) }
                throw fail("'\(word.prefix(40))' is not a value (strings are quoted)")
            }
        }

        static func open(_ root: inout Table, _ path: [String], array: Bool, line: Int) throws(ParseError) {
            try withTable(&root, Array(path.dropLast()), line: line) { (t: inout Table) throws(ParseError) in
                let k = path.last!
                if array {
                    var items: [Value] = []
                    if let existing = t[k] {
                        guard case .array(let a) = existing else {
                            throw ParseError(line: line, reason: "'\(k)' is not an array of tables")
                        }
                        items = a
                    }
                    items.append(.table(Table()))
                    t.set(k, .array(items))
                } else if t[k] == nil {
                    t.set(k, .table(Table()))
                } else if case .table = t[k]! {
                    // Opened again to add keys: allowed.
                } else {
                    throw ParseError(line: line, reason: "'\(k)' is already a value")
                }
            }
        }

        static func assign(_ root: inout Table, _ path: [String], _ v: Value, line: Int) throws(ParseError) {
            try withTable(&root, Array(path.dropLast()), line: line) { (t: inout Table) throws(ParseError) in
                guard t[path.last!] == nil else { throw ParseError(line: line, reason: "'\(path.last!)' is given twice") }
                t.set(path.last!, v)
            }
        }

        static func assignIn(_ t: inout Table, _ path: [String], _ v: Value, line: Int) throws(ParseError) {
            try assign(&t, path, v, line: line)
        }

        /// Calls `body` with the table at `path` (created as needed; in an array of tables, its last element).
        static func withTable(_ t: inout Table, _ path: [String], line: Int, _ body: (inout Table) throws(ParseError) -> Void)
            throws(ParseError)
        {
            guard let first = path.first else { return try body(&t) }
            let rest = Array(path.dropFirst())
            switch t[first] {
            case nil:
                var sub = Table()
                try withTable(&sub, rest, line: line, body)
                t.set(first, .table(sub))
            case .table(var sub)?:
                try withTable(&sub, rest, line: line, body)
                t.values[first] = .table(sub)
            case .array(var items)?:
                guard case .table(var sub)? = items.last else { throw ParseError(line: line, reason: "'\(first)' is not a table") }
                try withTable(&sub, rest, line: line, body)
                items[items.count - 1] = .table(sub)
                t.values[first] = .array(items)
            default:
                throw ParseError(line: line, reason: "'\(first)' is not a table")
            }
        }
    }
}
