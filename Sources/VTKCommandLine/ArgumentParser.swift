/// One option a subcommand accepts.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable { case flag, value, list }
    public let names: [String]
    public let kind: Kind
    public let valueName: String
    public let help: String

    public static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, kind: .flag, valueName: "", help: help)
    }

    public static func value(_ names: String..., valueName: String, help: String) -> OptionSpec {
        OptionSpec(names: names, kind: .value, valueName: valueName, help: help)
    }

    /// A value option that may be given several times (`--decoder A --decoder B`), read with `ParsedArguments.list`.
    public static func list(_ names: String..., valueName: String, help: String) -> OptionSpec {
        OptionSpec(names: names, kind: .list, valueName: valueName, help: help)
    }

    /// The canonical name: the first long name (or the only name), without dashes.
    public var key: String { String((names.first { $0.hasPrefix("--") } ?? names[0]).drop { $0 == "-" }) }
}

/// The result of parsing: options by canonical name, and positional arguments.
public struct ParsedArguments: Sendable {
    public var values: [String: String] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []
    /// Every value of a `.list` option, in the order given.
    public var lists: [String: [String]] = [:]

    public func has(_ key: String) -> Bool { flags.contains(key) || values[key] != nil || lists[key] != nil }
    public func list(_ key: String) -> [String] { lists[key] ?? [] }
    public subscript(_ key: String) -> String? { values[key] }
}

/// A small table-driven parser: `--name value`, `--name=value`, `-n value`, flags, positionals, and `--`
/// to end options. A lone `-` is a positional (standard input or output).
public enum ArgumentParser {
    public static func parse(_ arguments: [String], options: [OptionSpec], command: String) throws(CommandFailure) -> ParsedArguments {
        var byName: [String: OptionSpec] = [:]
        for spec in options { for name in spec.names { byName[name] = spec } }
        var result = ParsedArguments()
        var i = 0
        var optionsEnded = false
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            guard let spec = byName[name] else {
                let hint = Suggestions.option(name, known: Array(byName.keys)).map { "; \($0)" } ?? ""
                throw CommandFailure(.usage, "vtk \(command): unknown option '\(name)'\(hint) (see 'vtk help \(command)')")
            }
            switch spec.kind {
            case .flag:
                if inlineValue != nil { throw CommandFailure(.usage, "vtk \(command): \(name) takes no value") }
                result.flags.insert(spec.key)
            case .value, .list:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < arguments.count else { throw CommandFailure(.usage, "vtk \(command): \(name) needs a value (\(spec.valueName))") }
                    value = arguments[i]
                    i += 1
                }
                if spec.kind == .list { result.lists[spec.key, default: []].append(value); continue }
                if result.values[spec.key] != nil, result.values[spec.key] != value {
                    throw CommandFailure(.usage, "vtk \(command): \(name) given twice")
                }
                result.values[spec.key] = value
            }
        }
        return result
    }

    /// The option table as help text.
    public static func help(_ options: [OptionSpec]) -> String {
        let rows = options.map { spec -> (String, String) in
            let names = spec.names.joined(separator: ", ") + (spec.kind == .flag ? "" : " \(spec.valueName)")
            return (names, spec.help)
        }
        let width = min(34, (rows.map(\.0.count).max() ?? 0) + 2)
        return rows.map { names, help in
            let pad = names.count < width ? String(repeating: " ", count: width - names.count) : "\n" + String(repeating: " ", count: width + 2)
            return "  " + names + pad + help
        }.joined(separator: "\n")
    }
}

/// Typed access to option values, with messages that name the option.
struct OptionValues {
    let parsed: ParsedArguments
    let command: String

    func int(_ key: String, range: ClosedRange<Int>) throws(CommandFailure) -> Int? {
        guard let text = parsed[key] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw CommandFailure(.usage, "vtk \(command): --\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    func double(_ key: String, range: ClosedRange<Double>) throws(CommandFailure) -> Double? {
        guard let text = parsed[key] else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw CommandFailure(.usage, "vtk \(command): --\(key) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    func choice(_ key: String, _ choices: [String]) throws(CommandFailure) -> String? {
        guard let text = parsed[key] else { return nil }
        guard choices.contains(text) else {
            let hint = Suggestions.value(text, choices: choices).map { "; \($0)" } ?? ""
            throw CommandFailure(.usage, "vtk \(command): --\(key) must be one of \(choices.joined(separator: ", ")), not '\(text)'\(hint)")
        }
        return text
    }

    /// WxH with both positive and even (4:2:0 needs whole chroma samples... odd sizes are allowed by
    /// H.264 cropping, so only positive and within 16384 is required).
    func size(_ key: String) throws(CommandFailure) -> (width: Int, height: Int)? {
        guard let text = parsed[key] else { return nil }
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw CommandFailure(.usage, "vtk \(command): --\(key) must be WIDTHxHEIGHT, e.g. 1280x720, not '\(text)'")
        }
        guard (1...16384).contains(w), (1...16384).contains(h) else {
            throw CommandFailure(.usage, "vtk \(command): --\(key) \(text): width and height must be from 1 to 16384")
        }
        return (w, h)
    }

    /// Rejects options that cannot go together.
    func conflict(_ a: String, _ b: String) throws(CommandFailure) {
        if parsed.has(a) && parsed.has(b) {
            throw CommandFailure(.usage, "vtk \(command): --\(a) and --\(b) cannot be used together")
        }
    }
}
