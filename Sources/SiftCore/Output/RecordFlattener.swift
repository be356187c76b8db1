import Foundation
import SiftArchive

/// Turns records into flat rows for `pbsift records`: one JSON object per record (for jq) or one CSV
/// row (for spreadsheets).
public enum RecordFlattener {
    /// The record's own fields plus `sessionId`, `input`, `file`, `line`; bodies stored as base64
    /// that decode to UTF-8 text gain a `text` field beside `data`.
    public static func object(_ record: Record, session: SessionContext) -> [String: JSONOut] {
        guard case .object(var o) = record.json.out else { return [:] }
        o["sessionId"] = .opt(session.sessionId)
        o["input"] = .string(session.input.path)
        o["file"] = .string(session.file)
        o["line"] = .int(record.line)
        for side in ["request", "response"] {
            guard case .object(var part)? = o[side], case .object(var body)? = part["body"],
                  case .string(let data)? = body["data"], body["text"] == nil,
                  let bytes = Base64.decode(data), let text = String(validating: bytes, as: UTF8.self) else { continue }
            body["text"] = .string(text)
            part["body"] = .object(body)
            o[side] = .object(part)
        }
        return o
    }

    /// Default CSV columns.
    public static let defaultColumns = ["sessionId", "seq", "ts", "type", "level", "label", "message", "name",
                                        "method", "url", "statusCode", "duration", "state", "requestId"]

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
