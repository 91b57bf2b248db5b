/// A minimal JSON value that keeps key order, so output diffs well and reads in a stable order
/// (vtksoft's capture lines, the CLI's --json reports).
public enum JSONValue: Sendable {
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// A number that JSON can hold: NaN and infinities become null (JSON has no such values).
    public static func number(_ value: Double) -> JSONValue { value.isFinite ? .double(value) : .null }

    public static func ints<T: BinaryInteger>(_ values: [T]) -> JSONValue { .array(values.map { .int(Int($0)) }) }

    /// The integers of a C fixed-size array (imported as a tuple), flattened in memory order.
    public static func ints<Tuple, T: BinaryInteger>(tuple: Tuple, of: T.Type) -> JSONValue {
        ints(withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: T.self)) })
    }

    public func write(into out: inout String) {
        switch self {
        case .int(let v): out += String(v)
        case .double(let v): out += v.isFinite ? (v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)") : "null"
        case .bool(let v): out += v ? "true" : "false"
        case .null: out += "null"
        case .string(let s):
            out += "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                default: out.unicodeScalars.append(scalar)
                }
            }
            out += "\""
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out += "," }
                JSONValue.string(key).write(into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    public var text: String {
        var out = ""
        write(into: &out)
        return out
    }
}
