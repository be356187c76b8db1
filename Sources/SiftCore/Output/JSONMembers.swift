import Foundation

/// An object's members, written through a `JSONWriter` byte for byte as `JSONWriter.value(_:)` writes
/// an object (keys sorted): small members as trees, large ones (thousands of findings or sessions)
/// written element by element, each element's tree built only while it is written. A report's
/// document is then never held as one tree beside the report it is made from.
public struct JSONMembers {
    private enum Member {
        case value(JSONOut)
        case stream((inout JSONWriter) -> Void)
    }

    private var members: [String: Member] = [:]

    public init(_ values: [String: JSONOut] = [:]) {
        for (k, v) in values { members[k] = .value(v) }
    }

    /// A member given as a tree (nil removes it).
    public subscript(key: String) -> JSONOut? {
        get {
            if case .value(let v)? = members[key] { return v }
            return nil
        }
        set { members[key] = newValue.map { .value($0) } }
    }

    /// A member written by `write` (one value, at the writer's depth) when its turn comes.
    public mutating func stream(_ key: String, _ write: @escaping (inout JSONWriter) -> Void) {
        members[key] = .stream(write)
    }

    /// An array member whose elements are made one at a time by `element`, as they are written.
    public mutating func array<C: Collection>(_ key: String, _ items: C, _ element: @escaping (C.Element) -> JSONOut) {
        stream(key) { w in
            w.beginArray()
            for item in items {
                w.element()
                w.value(element(item))
            }
            w.endArray()
        }
    }

    /// Whether a member of that name is present.
    public func contains(_ key: String) -> Bool { members[key] != nil }

    /// Writes the members as one object, keys sorted.
    public func write(into w: inout JSONWriter) {
        w.beginObject()
        writeMembers(into: &w)
        w.endObject()
    }

    /// Writes the members, keys sorted, into an object the caller opened (and closes after members
    /// of its own that sort after these).
    public func writeMembers(into w: inout JSONWriter) {
        for key in members.keys.sorted() {
            w.key(key)
            switch members[key] {
            case .value(let v)?: w.value(v)
            case .stream(let write)?: write(&w)
            case nil: w.null()
            }
        }
    }
}
