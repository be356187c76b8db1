/// A line that is not strict JSON only because of its numbers (`NaN`, `Infinity`, `-Infinity`,
/// `007`, `+1`, `0x1F`, `.5`, `1.`): the same line with each such token written `null`, so it can
/// be read field by field like any record. Strings are kept byte for byte; nil when the line holds
/// no such token (it is damaged some other way).
public enum TolerantNumbers {
    /// Tokens longer than this are left as they are (no number is that long).
    static let maxToken = 64

    public static func repair(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var replaced = false
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                // A string, copied as it stands (escapes included).
                var j = i + 1
                while j < n && bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
                j = min(j + 1, n)
                out.append(contentsOf: bytes[i..<j])
                i = j
                continue
            }
            if isTokenByte(c) {
                var j = i
                while j < n && isTokenByte(bytes[j]) { j += 1 }
                let token = bytes[i..<j]
                if j - i <= maxToken && !isStrictToken(token) {
                    out.append(contentsOf: Array("null".utf8))
                    replaced = true
                } else {
                    out.append(contentsOf: token)
                }
                i = j
                continue
            }
            out.append(c)
            i += 1
        }
        return replaced ? out : nil
    }

    /// Bytes a bare token (a number, a literal, or something number-like) is made of.
    @inline(__always) static func isTokenByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default: return false
        }
    }

    /// `true`, `false`, `null`, or a number as RFC 8259 writes it.
    static func isStrictToken(_ t: ArraySlice<UInt8>) -> Bool {
        if t.elementsEqual("true".utf8) || t.elementsEqual("false".utf8) || t.elementsEqual("null".utf8) { return true }
        var i = t.startIndex
        let e = t.endIndex
        if i < e && t[i] == UInt8(ascii: "-") { i += 1 }
        guard i < e else { return false }
        func digit(_ k: Int) -> Bool { k < e && t[k] >= UInt8(ascii: "0") && t[k] <= UInt8(ascii: "9") }
        if t[i] == UInt8(ascii: "0") {
            i += 1
        } else if digit(i) {
            while digit(i) { i += 1 }
        } else {
            return false
        }
        if i < e && t[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        if i < e && (t[i] == UInt8(ascii: "e") || t[i] == UInt8(ascii: "E")) {
            i += 1
            if i < e && (t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-")) { i += 1 }
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        return i == e
    }
}
