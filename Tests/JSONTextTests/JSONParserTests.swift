import Foundation
import JSONText
import Testing

/// JSONValue.parse against Foundation's JSONSerialization, the independent oracle: the same texts give
/// the same values, and the texts it refuses are refused.
@Suite("JSONValue.parse")
struct JSONParserTests {
    /// Whether our value is what JSONSerialization read: the same numbers, strings, lists and keys.
    private static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .int(let v): return (theirs as? NSNumber)?.doubleValue == Double(v)
        case .double(let v): return (theirs as? NSNumber)?.doubleValue == v
        case .bool(let v): return theirs as? Bool == v
        case .null: return theirs is NSNull
        case .string(let s): return theirs as? String == s
        case .array(let items):
            guard let list = theirs as? [Any], list.count == items.count else { return false }
            return zip(items, list).allSatisfy { same($0, $1) }
        case .object(let fields):
            guard let dictionary = theirs as? [String: Any], dictionary.count == Set(fields.map(\.0)).count else { return false }
            return fields.allSatisfy { key, _ in dictionary[key].map { same(ours[key] ?? .null, $0) } ?? false }
        }
    }

    private static func oracle(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    static let documents = [
        #"{"name":"JVT-AVC_V1","codec":"H.264","test_vectors":[{"name":"BA1_FT_C","input_file":"BA1_FT_C.264","result":"4f2d","frames":[0,1,2]}]}"#,
        #"[1, -2, 3.5, -0.25, 1e3, 2E-2, 0, -0, 12345678901234, true, false, null]"#,
        " \n\t{ \"a\" : [ ] , \"b\" : { } , \"c\" : \"\" } \r\n",
        #"["\"\\\/\b\f\n\r\t", "\u00e9\u20ac", "\ud83d\ude00", "é€😀", "a\u0000b"]"#,
        #"{"psnr":{"y":47.29,"u":47.09,"v":43.21},"ssim":0.9876,"bitrate":430312.5,"idr_frames":[0,60]}"#,
        "0.1", "\"text\"", "-1.5e-7",
        // A comma before the closing bracket: JSONSerialization took it, so vtk's files may have it.
        "[1,]", #"{"a":[1,2,],}"#,
    ]

    @Test("Documents parse to what JSONSerialization reads", arguments: documents)
    func sameAsFoundation(text: String) throws {
        let ours = try JSONValue.parse(Array(text.utf8))
        #expect(Self.same(ours, try Self.oracle(text)), "\(text)")
    }

    static let refused = ["", "{", "[,]", "[1,,]", "{,}", "01", "1.", ".5", "+1", "[1 2]", "{\"a\" 1}", "{a:1}", "'x'", "\"\\x\"",
                          "\"\u{01}\"", "tru", "nul", "[1]x", "\"\\ud800\"", "\"abc", "-", "1e", "[", "{\"a\":}"]

    @Test("Texts that are not JSON are refused, as JSONSerialization refuses them", arguments: refused)
    func refusedAsFoundation(text: String) {
        #expect(throws: JSONParseError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
        #expect(throws: (any Error).self, "\(text)") { try Self.oracle(text) }
    }

    @Test("Objects keep their key order; integers stay .int, other numbers are .double")
    func shapes() throws {
        let value = try JSONValue.parse(Array(#"{"z":1,"a":2.5,"m":[3,-4],"n":1e2}"#.utf8))
        #expect(value.objectValue?.map(\.0) == ["z", "a", "m", "n"])
        #expect(value.text == #"{"z":1,"a":2.5,"m":[3,-4],"n":100}"#)
        guard case .int(1)? = value["z"] else { Issue.record("z is \(String(describing: value["z"]))"); return }
        #expect(value["a"]?.intValue == nil && value["a"]?.doubleValue == 2.5)
        #expect(value["n"]?.intValue == 100)
        #expect(value["m"]?.intsValue == [3, -4] && value["m"]?.stringsValue == nil)
        #expect(value["missing"] == nil && value["z"]?["x"] == nil)
    }

    @Test("What vtk writes parses back to itself")
    func roundTrip() throws {
        let value = JSONValue.object([("s", .string("a\"b\\c\n\u{01}é😀")), ("n", .double(-2.5)), ("i", .int(-7)), ("b", .bool(false)),
                                      ("z", .null), ("l", .array([.object([]), .array([])]))])
        #expect(try JSONValue.parse(Array(value.text.utf8)).text == value.text)
    }

    @Test("The error names the byte where the text stops being JSON")
    func errorOffset() {
        do {
            _ = try JSONValue.parse(Array("[1, 2 3]".utf8))
            Issue.record("[1, 2 3] parsed")
        } catch {
            #expect(error.offset == 6 && error.description == "expected ',' or ']' at byte 6")
        }
    }

    @Test("Nesting deeper than the limit is refused, not a stack overflow")
    func depth() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(deep.utf8)) }
    }

    @Test("A number beyond a Double's range is refused (JSONSerialization refuses it), not read as infinity")
    func hugeNumber() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("[1e400]".utf8)) }
        #expect((try? Self.oracle("[1e400]")) == nil)
    }

    @Test("A UTF-8 byte order mark before the value is skipped, as JSONSerialization skips it")
    func byteOrderMark() throws {
        let text: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8)
        let ours = try JSONValue.parse(text)
        #expect(ours["a"]?.doubleValue == 1)
        #expect(Self.same(ours, try JSONSerialization.jsonObject(with: Data(text))))
    }
}
