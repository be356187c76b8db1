/// Converting a parsed value back into a printable one.
extension JSONValue {
    /// The value as a `JSONOut` tree (numbers keep integer form when integral; repeated member names:
    /// the last one wins, as in most JSON readers).
    public var out: JSONOut {
        switch kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number:
            if let i = int, !rawText.contains("."), !rawText.contains("e"), !rawText.contains("E") { return .int(i) }
            return .double(double ?? 0)
        case .string: return .string(string ?? "")
        case .array: return .array(elements.map(\.out))
        case .object:
            var o: [String: JSONOut] = [:]
            forEachMember { k, v in o[k] = v.out }
            return .object(o)
        }
    }
}
