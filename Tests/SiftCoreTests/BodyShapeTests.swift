import Testing
@testable import SiftCore

/// `BodyShape.of` reads a record's bodies off the tape; it must read them as the member-by-name
/// reading through `JSONValue` did (kept here as the oracle), whatever the body holds.
@Suite struct BodyShapeTests {
    /// The former reading: `JSONValue` subscripts, member by member.
    static func reference(_ record: Record) -> [String] {
        func shape(_ location: String, _ json: JSONValue) -> String {
            let size = json["size"]?.int
            let content: String
            if let blob = json["blob"]?.string {
                content =
                    "blob \(Body.blobHex(blob) ?? "-") \(blob) \(json["storedSize"]?.int.map(String.init) ?? "-") \(json["truncated"]?.bool ?? false)"
            } else if let enc = json["encoding"]?.string {
                if enc == "utf8", let n = json["text"]?.decodedUTF8Count {
                    content = "text \(n)"
                } else if enc == "base64", let d = json["data"], d.isString {
                    content = "base64 \(d.base64DecodedCount.map(String.init) ?? "-")"
                } else {
                    content = "invalid encoding '\(enc)' without its text or data"
                }
            } else if json.isObject && (size ?? 0) == 0 {
                content = "none"
            } else {
                content = "invalid a body of \(size.map(String.init) ?? "unknown") bytes without text, data or blob"
            }
            return "\(location) \(size.map(String.init) ?? "-") \(content)"
        }
        var out: [String] = []
        if let b = record.json["request", "body"], b.isObject { out.append(shape("request.body", b)) }
        if let b = record.json["response", "body"], b.isObject { out.append(shape("response.body", b)) }
        return out
    }

    static func describe(_ s: BodyShape) -> String {
        let content: String
        switch s.content {
        case .none: content = "none"
        case .text(let n): content = "text \(n)"
        case .base64(let n): content = "base64 \(n.map(String.init) ?? "-")"
        case .blob(let hex, let reference, let stored, let truncated):
            content = "blob \(hex ?? "-") \(reference) \(stored.map(String.init) ?? "-") \(truncated)"
        case .invalid(let why): content = "invalid \(why)"
        }
        return "\(s.location) \(s.size.map(String.init) ?? "-") \(content)"
    }

    static let hex = String(repeating: "ab", count: 32)
    /// Bodies of every shape, and of the shapes a hand-edited export may take.
    static let bodies: [String] = [
        #"{}"#, #"{"size":0}"#, #"{"size":12}"#, #"{"size":3,"encoding":"utf8","text":"abc"}"#,
        #"{"size":3,"encoding":"utf8","text":"a\nb\u00e9"}"#, #"{"size":"3","encoding":"utf8","text":"abc"}"#,
        #"{"size":3.0,"encoding":"utf8","text":"abc"}"#, #"{"size":-1,"encoding":"utf8","text":""}"#,
        #"{"encoding":"utf8"}"#, #"{"encoding":"utf8","text":12}"#, #"{"encoding":"base64","data":"QUJD"}"#,
        #"{"size":4,"encoding":"base64","data":"QUJD*"}"#, #"{"encoding":"base64","data":null}"#, #"{"encoding":"base64"}"#,
        #"{"encoding":"gzip","data":"QUJD"}"#, #"{"encoding":7,"text":"abc"}"#, #"{"encoding":"utf\u0038","text":"abc"}"#,
        #"{"encoding":"UTF8","text":"abc"}"#, #"{"enc\u006fding":"utf8","text":"abc"}"#,
        #"{"encoding":"utf8","text":"a","text":"abcdef"}"#, #"{"size":1,"size":2,"encoding":"utf8","text":"ab"}"#,
        #"{"blob":"sha256:\#(hex)","storedSize":10,"size":10}"#,
        #"{"blob":"sha256:\#(hex.uppercased())","truncated":true,"size":20,"storedSize":10}"#,
        #"{"blob":"md5:abc","storedSize":"10"}"#, #"{"blob":12,"encoding":"utf8","text":"x"}"#, #"{"blob":"sha256:\u0061b","truncated":1}"#,
        #"{"blob":"sha256:\#(hex)","storedSize":1e3,"truncated":false}"#
    ]

    @Test func theTapeReadingIsTheFormerOne() throws {
        var lines: [String] = []
        for b in Self.bodies {
            lines.append(#"{"type":"network","id":"rec_1","request":{"headers":[],"body":\#(b)},"response":{"body":\#(b)}}"#)
            lines.append(#"{"type":"network","response":{"body":\#(b),"body":{"size":99}},"request":{"body":\#(b)}}"#)
            lines.append(#"{"type":"network","request":{"b\u006fdy":\#(b)},"resp\u006fnse":{"body":\#(b)}}"#)
            lines.append(#"{"type":"network","request":\#(b),"request":{"body":\#(b)}}"#)
        }
        lines += [
            #"{"type":"network"}"#, #"{"type":"network","request":[],"response":"x"}"#,
            #"{"type":"network","request":{"body":[]},"response":{"body":"x"}}"#,
            #"{"type":"network","request":{"body":null},"response":{}}"#
        ]
        for l in lines {
            let record = Record(line: 1, json: try JSONDocument(string: l).root)
            #expect(BodyShape.of(record).map(Self.describe) == Self.reference(record), "\(l)")
        }
    }
}
