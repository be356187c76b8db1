import Foundation
import SiftCore

/// A small JSON Schema (2020-12) validator for the keywords pbsift's schemas use: `type`, `const`,
/// `enum`, `properties`, `required`, `additionalProperties`, `items`, `minItems`, `minimum`, `oneOf`
/// and local `$ref`s. Returns the paths and reasons of every violation.
struct SchemaValidator {
    let root: JSONValue

    init(schema: JSONValue) { root = schema }

    func validate(_ v: JSONValue) -> [String] {
        var errors: [String] = []
        check(v, root, "$", &errors)
        return errors
    }

    private func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#/") else { return nil }
        var cur: JSONValue? = root
        for part in ref.dropFirst(2).split(separator: "/") { cur = cur?[String(part)] }
        return cur
    }

    private func typeName(_ v: JSONValue) -> String {
        switch v.kind {
        case .null: "null"
        case .true, .false: "boolean"
        case .number: v.int != nil && !v.rawText.contains(".") && !v.rawText.lowercased().contains("e") ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    private func check(_ v: JSONValue, _ s: JSONValue, _ path: String, _ errors: inout [String]) {
        if let ref = s["$ref"]?.string {
            guard let target = resolve(ref) else { errors.append("\(path): unresolved \(ref)"); return }
            check(v, target, path, &errors)
        }
        if let t = s["type"] {
            let allowed = t.isArray ? t.elements.compactMap(\.string) : [t.string ?? ""]
            let have = typeName(v)
            if !(allowed.contains(have) || (have == "integer" && allowed.contains("number"))) {
                errors.append("\(path): type \(have), expected \(allowed)")
                return
            }
        }
        if let c = s["const"], c.rawText != v.rawText { errors.append("\(path): not the constant \(c.rawText)") }
        if let e = s["enum"], !e.elements.contains(where: { $0.rawText == v.rawText }) {
            errors.append("\(path): \(v.rawText.prefix(40)) not in \(e.rawText)")
        }
        if let min = s["minimum"]?.double, let d = v.double, d < min { errors.append("\(path): \(d) < \(min)") }
        if let one = s["oneOf"] {
            let passing = one.elements.filter { sub in
                var e: [String] = []
                check(v, sub, path, &e)
                return e.isEmpty
            }.count
            if passing != 1 { errors.append("\(path): matches \(passing) of oneOf") }
        }
        if v.isObject {
            for r in s["required"]?.elements.compactMap(\.string) ?? [] where v[r] == nil {
                errors.append("\(path): missing \(r)")
            }
            let props = s["properties"]
            v.forEachMember { k, sub in
                let p = JSONValue.memberPath(path, k)
                if let ps = props?[k] {
                    check(sub, ps, p, &errors)
                } else if let ap = s["additionalProperties"] {
                    if ap.bool == false { errors.append("\(p): not allowed") } else if ap.isObject { check(sub, ap, p, &errors) }
                }
            }
        }
        if v.isArray {
            if let m = s["minItems"]?.int, v.count < m { errors.append("\(path): fewer than \(m) items") }
            if let items = s["items"] {
                for (i, e) in v.elements.enumerated() { check(e, items, "\(path)[\(i)]", &errors) }
            }
        }
    }
}
