/// Why a text is not JSON (RFC 8259), and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Offset of the first byte that does not fit, from 0.
    public let offset: Int
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// The JSON value of `text` (RFC 8259): one value, whitespace around it. Numbers without a fraction or
    /// exponent that fit an Int are `.int`, other numbers `.double`; objects keep their key order. A comma
    /// before a closing bracket or brace is accepted, as Foundation's JSONSerialization accepted it in the
    /// files vtk reads (encode matrices, suites, reports).
    public static func parse(_ text: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        var bytes = Array(text)
        // A UTF-8 byte order mark is skipped, as JSONSerialization skipped it (RFC 8259 8.1 lets a parser ignore it).
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var parser = JSONParser(bytes: bytes)
        return try parser.document()
    }

    /// An object's value for `key` (the last one, when the key is repeated); nil for other values.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.last { $0.0 == key }?.1
    }

    public var stringValue: String? {
        guard case .string(let s) = self else { return nil }
        return s
    }

    /// Any number.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    /// A number with an integral value.
    public var intValue: Int? {
        switch self {
        case .int(let v): return v
        case .double(let v): return v == v.rounded() && abs(v) < 9.2e18 ? Int(v) : nil
        default: return nil
        }
    }

    public var arrayValue: [JSONValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// An object's fields in order.
    public var objectValue: [(String, JSONValue)]? {
        guard case .object(let fields) = self else { return nil }
        return fields
    }

    /// An array of strings only.
    public var stringsValue: [String]? {
        guard let items = arrayValue else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }

    /// An array of objects only.
    public var objectsValue: [JSONValue]? {
        guard let items = arrayValue, items.allSatisfy({ $0.objectValue != nil }) else { return nil }
        return items
    }

    /// An array of integral numbers only.
    public var intsValue: [Int]? {
        guard let items = arrayValue else { return nil }
        let ints = items.compactMap(\.intValue)
        return ints.count == items.count ? ints : nil
    }
}

/// A recursive-descent reader of RFC 8259 JSON over bytes.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    /// Arrays and objects nested deeper than this are refused rather than recursed into.
    static let depthLimit = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    mutating func document() throws(JSONParseError) -> JSONValue {
        let value = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected text after the value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: String) throws(JSONParseError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw fail("unexpected character")
        }
        index += expected.count
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.depthLimit else { throw fail("nested too deeply") }
        index += 1  // {
        var fields: [(String, JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
        while true {
            skipWhitespace()
            if !fields.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            fields.append((key, try value(depth: depth)))
            if try closes(with: "}") { return .object(fields) }
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.depthLimit else { throw fail("nested too deeply") }
        index += 1  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            if !items.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            items.append(try value(depth: depth))
            if try closes(with: "]") { return .array(items) }
        }
    }

    /// After a member of an object or array: a comma (false: another member follows) or `close` (true), taken.
    private mutating func closes(with close: Unicode.Scalar) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of text") }
        if bytes[index] == UInt8(ascii: ",") { index += 1; return false }
        guard bytes[index] == UInt8(ascii: close) else { throw fail("expected ',' or '\(close)'") }
        index += 1
        return true
    }

    /// A string from its opening quote: escapes decoded (\uXXXX with surrogate pairs), raw control characters refused.
    mutating func string() throws(JSONParseError) -> String {
        index += 1  // "
        var utf8: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else { throw fail("string is not UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("lone surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("lone surrogate") }
                    utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    index -= 1
                    throw fail("unknown escape")
                }
            case 0..<0x20:
                throw fail("control character in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        var integral = true
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.index
            while parser.index < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index]) { parser.index += 1 }
            return parser.index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        let intDigits = digits(&self)
        guard intDigits > 0 else { throw fail("expected a digit") }
        if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") { index = intStart + 1; throw fail("leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard digits(&self) > 0 else { throw fail("expected a digit") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw fail("expected a digit") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { index = start; throw fail("number out of range") }
        return .double(value)
    }
}
