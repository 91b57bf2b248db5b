import Foundation
import JSONText
import Testing

/// JSONValue's text against Foundation's JSON parser, the independent oracle: what it writes must parse
/// back to the same values, in the order written.
@Suite("JSONValue")
struct JSONValueTests {
    private static func parse(_ value: JSONValue) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(value.text.utf8), options: [.fragmentsAllowed])
    }

    @Test("Strings with quotes, backslashes, control characters and non-ASCII parse back unchanged")
    func escaping() throws {
        let text = "a\"b\\c\n\t\u{01}\u{1F}é€😀/"
        #expect(try Self.parse(.string(text)) as? String == text)
        // Control characters are written as \u00XX, never raw.
        #expect(JSONValue.string("\u{01}").text == "\"\\u0001\"")
    }

    @Test("Objects keep their key order")
    func keyOrder() throws {
        let value = JSONValue.object([("zeta", .int(1)), ("alpha", .bool(true)), ("mid", .null)])
        #expect(value.text == #"{"zeta":1,"alpha":true,"mid":null}"#)
        let parsed = try #require(try Self.parse(value) as? [String: Any])
        #expect(parsed["zeta"] as? Int == 1 && parsed["alpha"] as? Bool == true && parsed["mid"] is NSNull)
    }

    @Test("Numbers: integral doubles without a fraction, others exactly, NaN and infinities as null")
    func numbers() throws {
        #expect(JSONValue.double(3).text == "3")
        #expect(JSONValue.double(-2.5).text == "-2.5")
        #expect(try Self.parse(.double(0.1)) as? Double == 0.1)
        #expect(JSONValue.number(.nan).text == "null")
        #expect(JSONValue.number(-.infinity).text == "null")
        #expect(JSONValue.double(.infinity).text == "null")
        // Too large for Int64 formatting: still a number that parses back.
        #expect(try Self.parse(.double(1e20)) as? Double == 1e20)
    }

    @Test("A C fixed-size array (a tuple) is its integers in memory order")
    func tupleIntegers() {
        let tuple: (Int16, Int16, Int16, Int16) = (1, -2, 300, 0)
        #expect(JSONValue.ints(tuple: tuple, of: Int16.self).text == "[1,-2,300,0]")
        #expect(JSONValue.ints([UInt8(7), 8]).text == "[7,8]")
    }

    @Test("Nested arrays and objects parse back to the same structure")
    func nesting() throws {
        let value = JSONValue.array([.object([("a", .array([.int(1), .string("x")]))]), .array([])])
        let parsed = try #require(try Self.parse(value) as? [Any])
        #expect(parsed.count == 2)
        let first = try #require(parsed[0] as? [String: Any])
        #expect((first["a"] as? [Any])?.count == 2)
        #expect((parsed[1] as? [Any])?.isEmpty == true)
    }
}
