import Foundation
import SiftArchive

/// Turns records into flat rows for `pbsift records`: one JSON object per record (for jq) or one CSV
/// row (for spreadsheets).
public enum RecordFlattener {
    /// The record's own fields plus `sessionId`, `input`, `file`, `line`; bodies stored as base64
    /// that decode to UTF-8 text gain a `text` field beside `data`; the `data` of a body on a side in
    /// `withheld` (`request`, `response`) is `withheldText`.
    public static func object(_ record: Record, session: SessionContext, withheld: Set<String> = []) -> [String: JSONOut] {
        guard case .object(var o) = record.json.out else { return [:] }
        for (k, v) in members(record, session: session, withheld: withheld) { o[k] = v }
        return o
    }

    /// What `object` adds to a record's own members or puts in place of them: `sessionId`, `input`,
    /// `file`, `line`, and a side (`request`, `response`) whose body gains `text` or has its `data`
    /// withheld. The rest of the record is its own members as they stand (`Redactor.jsonLine` writes
    /// them from the parsed text).
    public static func members(_ record: Record, session: SessionContext, withheld: Set<String> = []) -> [String: JSONOut] {
        var o: [String: JSONOut] = [
            "sessionId": .opt(session.sessionId), "input": .string(session.input.path),
            "file": .string(session.file), "line": .int(record.line)
        ]
        for side in ["request", "response"] {
            // The last copy of a name is the one that stands (as in `JSONValue.out`).
            guard let part = last(record.json, side), let body = last(part, "body"), body.isObject, last(body, "data") != nil,
                case .object(var p) = part.out, case .object(var b)? = p["body"]
            else { continue }
            if case .string(let data)? = b["data"], b["text"] == nil,
                let bytes = Base64.decode(data), let text = String(validating: bytes, as: UTF8.self)
            {
                b["text"] = .string(text)
            }
            if withheld.contains(side) { b["data"] = .string(withheldText) }
            p["body"] = .object(b)
            o[side] = .object(p)
        }
        return o
    }

    /// What a withheld body's `data` reads.
    public static let withheldText = "[withheld: the body holds a credential]"

    /// The last member of `v` named `name`.
    static func last(_ v: JSONValue, _ name: String) -> JSONValue? {
        var found: JSONValue?
        v.forEachMemberName { k, x in if k.withStringUTF8({ $0.elementsEqual(name.utf8) }) { found = x } }
        return found
    }

    /// Default CSV columns.
    public static let defaultColumns = [
        "sessionId", "seq", "ts", "type", "level", "label", "message", "name",
        "method", "url", "statusCode", "duration", "state", "requestId"
    ]

    /// One CSV cell for a column name; nested values are addressed with dots (`error.code`).
    public static func cell(_ object: [String: JSONOut], column: String) -> String {
        var v: JSONOut? = .object(object)
        for part in column.split(separator: ".") {
            guard case .object(let o)? = v else { return "" }
            v = o[String(part)]
        }
        switch v {
        case nil, .null?: return ""
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .double(let d)?: return JSONOut.format(d)
        case .bool(let b)?: return b ? "true" : "false"
        case let other?: return other.render(pretty: false)
        }
    }
}
