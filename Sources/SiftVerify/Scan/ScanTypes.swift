import SiftArchive
import SiftCore

/// A finding before it is placed at a record: the value is turned into a preview and a fingerprint
/// as soon as the record is done, and never stored beyond that.
struct RawHit {
    var rule: RuleID
    var severity: Severity
    var location: String
    var value: String
    var message: String
    /// A bound stopped the checks here (`verify.bound`): no value, and the input is not verified in full.
    var bound = false
}

/// One step of a location path inside a record.
enum PathComp {
    case key(String)
    case index(Int)
    /// A member name as it stands on the tape (a string value): made a String only when rendered.
    case name(JSONValue)

    /// `.name` as the `.key` it stands for.
    var resolved: PathComp {
        if case .name(let v) = self { return .key(v.string ?? "") }
        return self
    }
}

/// Where inside a record a value stands: `log.metadata $.a[0].b` (JSON path after a prefix) or
/// `metrics.transactions[0].remoteAddress` (dotted record fields). Rendered only when a hit needs it.
/// The first steps are held inline (no allocation for the usual two or three); deeper ones in `spill`.
struct Loc {
    var prefix: String
    var jsonPath: Bool
    var c0: PathComp = .index(0), c1: PathComp = .index(0), c2: PathComp = .index(0), c3: PathComp = .index(0)
    var spill: [PathComp] = []
    var depth = 0

    init(_ prefix: String, jsonPath: Bool) {
        self.prefix = prefix
        self.jsonPath = jsonPath
    }

    mutating func push(_ c: PathComp) {
        switch depth {
        case 0: c0 = c
        case 1: c1 = c
        case 2: c2 = c
        case 3: c3 = c
        default: spill.append(c)
        }
        depth += 1
    }

    mutating func pop() {
        depth -= 1
        switch depth {
        case 0: c0 = .index(0)
        case 1: c1 = .index(0)
        case 2: c2 = .index(0)
        case 3: c3 = .index(0)
        default: spill.removeLast()
        }
    }

    /// The steps, outermost first.
    var comps: [PathComp] { (Array([c0, c1, c2, c3].prefix(depth)) + spill).map(\.resolved) }

    var lastKey: String? {
        for c in comps.reversed() { if case .key(let k) = c { return k } }
        return nil
    }

    func render() -> String {
        if jsonPath {
            var s = "$"
            for c in comps {
                switch c {
                case .key(let k): s = JSONValue.memberPath(s, clipName(k))
                case .index(let i): s += "[\(i)]"
                case .name: break // `comps` gives names resolved
                }
            }
            return prefix.isEmpty ? s : prefix + " " + s
        }
        var s = prefix
        for c in comps {
            switch c {
            case .key(let k): s += s.isEmpty ? clipName(k) : "." + clipName(k)
            case .index(let i): s += "[\(i)]"
            case .name: break // `comps` gives names resolved
            }
        }
        return s
    }
}

/// `a JSON Web Token`, `an AWS access key id`.
func article(_ title: String) -> String {
    guard let c = title.first else { return title }
    return ("AEIOUaeiou".contains(c) ? "an " : "a ") + title
}

/// Names from an export go into locations and messages: long ones are cut so a value can't ride along.
func clipName(_ s: String) -> String {
    // 64 bytes or fewer are 64 characters or fewer.
    if s.utf8.count <= 64 { return s }
    var count = 0
    for (i, _) in s.indices.enumerated() where i >= 64 { count = i; break }
    if count == 0 { return s }
    return String(s.prefix(64)) + "…"
}

/// Walks record fields, bodies, URLs and blobs, applying the redaction contract and the detectors.
/// Hits collect in `hits` until the caller takes them.
