import Foundation

/// JUnit XML for CI systems (GitLab, Jenkins, most others), for any command's findings.
///
/// One `testsuite` per input and session file; one `testcase` per rule and place (the record's
/// line, seq and location), failing when its finding is at or above `--fail-on`; an input not read
/// in full is an `error`. A file with no finding is one passing `testcase`. Every text is redacted
/// before it gets here and XML-escaped here; values are never printed (not even masked previews),
/// only their fingerprints.
public struct JUnitReporter<Report: FindingsReport>: Reporter {
    public init() {}

    public var format: String { "junit" }

    public func write(_ report: Report, to context: ReportContext) {
        context.sink.write(JUnitDocument.render(report.findingsDocument, failOn: context.failOn))
    }
}

/// The JUnit XML document of a findings document.
public enum JUnitDocument {
    struct Case {
        var name: String
        var classname: String
        var failing: [Finding] = []
        var passed: [Finding] = []
        var error: String?
    }

    struct Suite {
        var name: String
        var cases: [Case] = []
        var caseIndex: [String: Int] = [:]
        var failures: Int { cases.filter { !$0.failing.isEmpty }.count }
        var errors: Int { cases.filter { $0.error != nil }.count }
    }

    public static func render(_ doc: FindingsDocument, failOn: Severity?) -> String {
        var suites: [Suite] = []
        var bySuite: [String: Int] = [:]
        func suiteIndex(_ name: String) -> Int {
            if let i = bySuite[name] { return i }
            suites.append(Suite(name: name))
            bySuite[name] = suites.count - 1
            return suites.count - 1
        }
        let withFindings = Set(doc.findings.map(\.input))
        for input in doc.inputs where !withFindings.contains(input.path) { _ = suiteIndex(input.path) }
        for f in doc.findings {
            let s = suiteIndex(f.file.map { "\(f.input) \($0)" } ?? f.input)
            var place: [String] = []
            if let l = f.line { place.append("line \(l)") }
            if let q = f.seq { place.append("seq \(q)") }
            if let loc = f.location { place.append(loc) }
            let name = f.rule + (place.isEmpty ? "" : " " + place.joined(separator: " "))
            let fails = failOn.map { f.severity >= $0 } ?? false
            let k =
                suites[s].caseIndex[name]
                ?? {
                    suites[s].cases.append(Case(name: name, classname: f.rule))
                    suites[s].caseIndex[name] = suites[s].cases.count - 1
                    return suites[s].cases.count - 1
                }()
            if fails { suites[s].cases[k].failing.append(f) } else { suites[s].cases[k].passed.append(f) }
        }
        for input in doc.inputs where input.status != .ok {
            let s = suiteIndex(input.path)
            let why = input.errors.isEmpty ? "not read in full" : input.errors.joined(separator: "\n")
            suites[s].cases.append(Case(name: "read in full", classname: "pbsift.\(doc.command)", error: why))
        }
        for i in suites.indices where suites[i].cases.isEmpty {
            suites[i].cases.append(Case(name: "no findings", classname: "pbsift.\(doc.command)"))
        }

        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.failures }
        let errors = suites.reduce(0) { $0 + $1.errors }
        var o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        o += "<testsuites name=\"pbsift \(x(doc.command))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\">\n"
        for s in suites {
            o +=
                "  <testsuite name=\"\(x(s.name))\" tests=\"\(s.cases.count)\" failures=\"\(s.failures)\" errors=\"\(s.errors)\" skipped=\"0\">\n"
            for c in s.cases {
                o += "    <testcase classname=\"\(x(c.classname))\" name=\"\(x(c.name))\""
                if c.failing.isEmpty && c.error == nil && c.passed.isEmpty { o += "/>\n"; continue }
                o += ">\n"
                if let f = c.failing.first {
                    o += "      <failure type=\"\(x(f.rule))\" message=\"\(x(f.severity.rawValue + ": " + f.message))\">"
                    o += x(c.failing.map(details).joined(separator: "\n\n")) + "</failure>\n"
                }
                if let e = c.error {
                    o += "      <error type=\"pbsift.incomplete\" message=\"not read in full\">\(x(e))</error>\n"
                }
                if !c.passed.isEmpty {
                    let below = failOn.map { "below --fail-on \($0.rawValue)" } ?? "--fail-on never"
                    o +=
                        "      <system-out>"
                        + x(c.passed.map { "\($0.severity.rawValue) (\(below)): " + details($0) }.joined(separator: "\n"))
                        + "</system-out>\n"
                }
                o += "    </testcase>\n"
            }
            o += "  </testsuite>\n"
        }
        o += "</testsuites>\n"
        return o
    }

    /// What a finding says, with no value: rule, severity, place, message, fingerprint.
    static func details(_ f: Finding) -> String {
        var lines = ["rule: \(f.rule)", "severity: \(f.severity.rawValue)", "input: \(f.input)"]
        if let v = f.file { lines.append("file: \(v)") }
        if let v = f.line { lines.append("line: \(v)") }
        if let v = f.seq { lines.append("seq: \(v)") }
        if let v = f.sessionId { lines.append("session: \(v)") }
        if let v = f.recordId { lines.append("record: \(v)") }
        if let v = f.location { lines.append("location: \(v)") }
        lines.append("message: \(f.message)")
        if let v = f.fingerprint { lines.append("fingerprint: \(v)") }
        return lines.joined(separator: "\n")
    }

    /// XML text or attribute value: `Escape.xml` (no raw controls, bidi overrides or C1), and
    /// newlines kept as character references in attributes.
    static func x(_ s: String) -> String { Escape.xml(Escape.terminal(s, keepNewlines: true)) }
}
