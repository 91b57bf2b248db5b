import Foundation

/// Just enough YAML to read the CI examples in docs/ci (no YAML library is available to the tests):
/// block mappings and sequences by indentation, flow sequences `[a, b]` and mappings `{a: b}` of scalars,
/// quoted and plain scalars, `|` and `>` block scalars, comments. Anchors, tags and multi-document
/// files are not YAML the examples use.
indirect enum MiniYAML: Equatable, CustomStringConvertible {
    case scalar(String)
    case list([MiniYAML])
    case map([String: MiniYAML])

    struct ParseError: Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    subscript(_ key: String) -> MiniYAML? { if case .map(let m) = self { m[key] } else { nil } }
    var string: String? { if case .scalar(let s) = self { s } else { nil } }
    var items: [MiniYAML] { if case .list(let l) = self { l } else { [] } }
    var keys: [String] { if case .map(let m) = self { Array(m.keys) } else { [] } }

    var description: String {
        switch self {
        case .scalar(let s): return s
        case .list(let l): return "[" + l.map(\.description).joined(separator: ", ") + "]"
        case .map(let m): return "{" + m.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// A physical line without its comment: indentation and text.
    private struct Line { let number: Int; let indent: Int; let text: String; let raw: String }

    static func parse(_ source: String) throws -> MiniYAML {
        var lines: [Line] = []
        for (i, raw) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = stripComment(String(raw))
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                lines.append(Line(number: i + 1, indent: -1, text: "", raw: String(raw)))
                continue
            }
            if text.contains("\t") && text.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
                throw ParseError(line: i + 1, message: "a tab in the indentation")
            }
            let indent = text.prefix { $0 == " " }.count
            lines.append(Line(number: i + 1, indent: indent, text: text.trimmingCharacters(in: .whitespaces), raw: String(raw)))
        }
        var index = 0
        let value = try block(&index, lines, indent: 0)
        while index < lines.count, lines[index].indent < 0 { index += 1 }
        if index < lines.count { throw ParseError(line: lines[index].number, message: "unexpected indentation") }
        return value
    }

    private static func skipBlank(_ i: inout Int, _ lines: [Line]) { while i < lines.count, lines[i].indent < 0 { i += 1 } }

    /// The node whose lines are indented exactly `indent`.
    private static func block(_ i: inout Int, _ lines: [Line], indent: Int) throws -> MiniYAML {
        skipBlank(&i, lines)
        guard i < lines.count else { return .scalar("") }
        let first = lines[i]
        if first.text.hasPrefix("- ") || first.text == "-" {
            var items: [MiniYAML] = []
            while true {
                skipBlank(&i, lines)
                guard i < lines.count, lines[i].indent == indent, lines[i].text.hasPrefix("- ") || lines[i].text == "-" else { break }
                let line = lines[i]
                let rest = String(line.text.dropFirst(2)).trimmingCharacters(in: .whitespaces)
                i += 1
                if rest.isEmpty {
                    skipBlank(&i, lines)
                    items.append(i < lines.count && lines[i].indent > indent ? try block(&i, lines, indent: lines[i].indent) : .scalar(""))
                } else if isMappingEntry(rest) {
                    // "- key: value" starts a mapping indented at the key's column.
                    var nested = lines
                    let column = indent + (line.text.count - rest.count)
                    nested[i - 1] = Line(number: line.number, indent: column, text: rest, raw: line.raw)
                    var j = i - 1
                    items.append(try mapping(&j, nested, indent: column))
                    i = j
                } else {
                    items.append(try scalarOrFlow(rest, line: line.number))
                }
            }
            return .list(items)
        }
        if isMappingEntry(first.text) { return try mapping(&i, lines, indent: indent) }
        i += 1
        return try scalarOrFlow(first.text, line: first.number)
    }

    private static func mapping(_ i: inout Int, _ lines: [Line], indent: Int) throws -> MiniYAML {
        var map: [String: MiniYAML] = [:]
        while true {
            skipBlank(&i, lines)
            guard i < lines.count, lines[i].indent == indent else { break }
            let line = lines[i]
            guard let colon = mappingColon(line.text) else { throw ParseError(line: line.number, message: "expected 'key: value'") }
            let key = unquote(String(line.text[..<colon]).trimmingCharacters(in: .whitespaces))
            let rest = String(line.text[line.text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if map[key] != nil { throw ParseError(line: line.number, message: "key '\(key)' twice") }
            i += 1
            if rest == "|" || rest == ">" || rest == "|-" || rest == ">-" {
                var parts: [String] = []
                var blockIndent: Int?
                while i < lines.count, lines[i].indent < 0 || lines[i].indent > indent {
                    let raw = lines[i].raw
                    if lines[i].indent >= 0 {
                        let n = blockIndent ?? raw.prefix { $0 == " " }.count
                        blockIndent = n
                        parts.append(String(raw.dropFirst(min(n, raw.count))))
                    } else {
                        parts.append("")
                    }
                    i += 1
                }
                map[key] = .scalar(parts.joined(separator: rest.hasPrefix("|") ? "\n" : " ").trimmingCharacters(in: .whitespacesAndNewlines))
            } else if rest.isEmpty {
                skipBlank(&i, lines)
                if i < lines.count, lines[i].indent > indent || (lines[i].indent == indent && lines[i].text.hasPrefix("- ")) {
                    map[key] = try block(&i, lines, indent: lines[i].indent)
                } else {
                    map[key] = .scalar("")
                }
            } else {
                map[key] = try scalarOrFlow(rest, line: line.number)
            }
        }
        return .map(map)
    }

    private static func scalarOrFlow(_ text: String, line: Int) throws -> MiniYAML {
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else { throw ParseError(line: line, message: "unclosed [") }
            let inner = text.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
            return .list(inner.isEmpty ? [] : splitFlow(inner).map { .scalar(unquote($0)) })
        }
        if text.hasPrefix("{") {
            guard text.hasSuffix("}") else { throw ParseError(line: line, message: "unclosed {") }
            var map: [String: MiniYAML] = [:]
            for entry in splitFlow(String(text.dropFirst().dropLast())) {
                guard let colon = mappingColon(entry) else { throw ParseError(line: line, message: "expected key: value in {}") }
                map[unquote(String(entry[..<colon]))] = .scalar(unquote(String(entry[entry.index(after: colon)...])))
            }
            return .map(map)
        }
        if (text.hasPrefix("\"") && !text.hasSuffix("\"")) || (text.hasPrefix("'") && !text.hasSuffix("'")) || text == "\"" || text == "'" {
            throw ParseError(line: line, message: "unclosed quote")
        }
        return .scalar(unquote(text))
    }

    private static func splitFlow(_ text: String) -> [String] {
        var parts: [String] = [], current = "", quote: Character?
        for c in text {
            if let q = quote { current.append(c); if c == q { quote = nil }; continue }
            if c == "\"" || c == "'" { quote = c }
            if c == "," { parts.append(current.trimmingCharacters(in: .whitespaces)); current = ""; continue }
            current.append(c)
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { parts.append(current.trimmingCharacters(in: .whitespaces)) }
        return parts
    }

    private static func isMappingEntry(_ text: String) -> Bool { mappingColon(text) != nil }

    /// The colon of "key: value" or "key:", outside quotes and flow collections.
    private static func mappingColon(_ text: String) -> String.Index? {
        if text.hasPrefix("[") || text.hasPrefix("{") { return nil }
        var quote: Character?
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if let q = quote { if c == q { quote = nil } } else if c == "\"" || c == "'" { quote = c } else if c == ":" {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }

    private static func unquote(_ text: String) -> String {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.count >= 2, (t.hasPrefix("\"") && t.hasSuffix("\"")) || (t.hasPrefix("'") && t.hasSuffix("'")) { return String(t.dropFirst().dropLast()) }
        return t
    }

    /// The line without a `#` comment (one that starts the line or follows a space, outside quotes).
    private static func stripComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        var out = ""
        for c in line {
            if let q = quote { if c == q { quote = nil } } else if c == "\"" || c == "'" { quote = c } else if c == "#" && previous == " " { break }
            out.append(c)
            previous = c
        }
        return out.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }
}
