/// A subcommand: its name, one-line summary, usage, option table and the work.
struct Subcommand: Sendable {
    let name: String
    let summary: String
    let usage: String
    let options: [OptionSpec]
    let details: String
    let run: @Sendable (ParsedArguments) throws(CommandFailure) -> ExitCode
    /// Command lines shown under "examples:".
    var examples: [String] = []
    /// The exit codes the command can end with (all when empty).
    var exitCodes: [ExitCode] = []
    /// The command polls ``Interruption/requested`` and finishes its output on SIGINT/SIGTERM; others end at once.
    var interruptible = false

    var help: String {
        let examplesText = examples.isEmpty ? "" : "examples:\n" + examples.map { "  \($0)\n" }.joined() + "\n"
        return "usage: \(usage)\n\n\(summary)\n\n\(details)\n\noptions:\n\(ArgumentParser.help(options))\n\n\(examplesText)"
            + VTKCommand.exitCodeHelp(documentedExitCodes) + "\n"
    }

    /// The command's own exit codes, and those every command can end with: 6 (a bug) and 130 (interrupted).
    var documentedExitCodes: [ExitCode] {
        exitCodes.isEmpty ? ExitCode.allCases : exitCodes + [.internalError, .interrupted].filter { !exitCodes.contains($0) }
    }
}

/// The `vtk` command: dispatches to subcommands, prints help, turns failures into exit codes.
public enum VTKCommand {
    static let subcommands: [Subcommand] = [
        Subcommand(name: EncodeCommand.name, summary: EncodeCommand.summary, usage: EncodeCommand.usage, options: EncodeCommand.options,
                   details: EncodeCommand.details, run: EncodeCommand.run,
                   examples: EncodeCommand.examples, exitCodes: EncodeCommand.exitCodes, interruptible: true),
        Subcommand(name: DecodeCommand.name, summary: DecodeCommand.summary, usage: DecodeCommand.usage, options: DecodeCommand.options,
                   details: DecodeCommand.details, run: DecodeCommand.run,
                   examples: DecodeCommand.examples, exitCodes: DecodeCommand.exitCodes, interruptible: true),
        Subcommand(name: RoundtripCommand.name, summary: RoundtripCommand.summary, usage: RoundtripCommand.usage, options: RoundtripCommand.options,
                   details: RoundtripCommand.details, run: RoundtripCommand.run,
                   examples: RoundtripCommand.examples, exitCodes: RoundtripCommand.exitCodes),
        Subcommand(name: InfoCommand.name, summary: InfoCommand.summary, usage: InfoCommand.usage, options: InfoCommand.options,
                   details: InfoCommand.details, run: InfoCommand.run,
                   examples: InfoCommand.examples, exitCodes: InfoCommand.exitCodes),
        Subcommand(name: ProbeCommand.name, summary: ProbeCommand.summary, usage: ProbeCommand.usage, options: ProbeCommand.options,
                   details: ProbeCommand.details, run: ProbeCommand.run,
                   examples: ProbeCommand.examples, exitCodes: ProbeCommand.exitCodes),
        Subcommand(name: SendCommand.name, summary: SendCommand.summary, usage: SendCommand.usage, options: SendCommand.options,
                   details: SendCommand.details, run: SendCommand.run, examples: SendCommand.examples, exitCodes: SendCommand.exitCodes, interruptible: true),
        Subcommand(name: ReceiveCommand.name, summary: ReceiveCommand.summary, usage: ReceiveCommand.usage, options: ReceiveCommand.options,
                   details: ReceiveCommand.details, run: ReceiveCommand.run, examples: ReceiveCommand.examples, exitCodes: ReceiveCommand.exitCodes, interruptible: true),
        Subcommand(name: PlayCommand.name, summary: PlayCommand.summary, usage: PlayCommand.usage, options: PlayCommand.options,
                   details: PlayCommand.details, run: PlayCommand.run, examples: PlayCommand.examples, exitCodes: PlayCommand.exitCodes, interruptible: true),
        Subcommand(name: SuiteCommand.name, summary: SuiteCommand.summary, usage: SuiteCommand.usage, options: SuiteCommand.options,
                   details: SuiteCommand.details, run: SuiteCommand.run,
                   examples: SuiteCommand.examples, exitCodes: [.success, .thresholdNotMet, .usage, .input, .device, .output, .internalError, .interrupted]),
    ]

    static func exitCodeHelp(_ codes: [ExitCode]) -> String {
        "exit codes:\n" + codes.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
    }
    static var exitCodeHelp: String { exitCodeHelp(ExitCode.allCases) }

    public static var help: String {
        var text = "usage: vtk <command> [options]\n\nH.264 encode, H.264 and H.265 (Main, Main 10) decode through VA-API (hardware, or vtksoft without a GPU).\n\ncommands:\n"
        for command in subcommands { text += "  \(command.name.padding(10)) \(command.summary)\n" }
        text += "  \("help".padding(10)) help COMMAND shows a command's options\n\n"
        text += "\noptions:\n  --version  print vtk's version\n  -h, --help show this help\n\n"
        text += "Run 'vtk help COMMAND' or 'vtk COMMAND --help' for a command's options and examples.\n\n\(exitCodeHelp)\n"
        return text
    }

    /// Runs the command line (without the program name); returns the exit code.
    public static func main(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            StandardStreams.error(help)
            return ExitCode.usage.rawValue
        }
        if first == "--help" || first == "-h" {
            StandardStreams.out(help)
            return ExitCode.success.rawValue
        }
        if first == "--version" {
            StandardStreams.out("vtk \(version)\n")
            return ExitCode.success.rawValue
        }
        if first == "help" {
            guard arguments.count > 1, arguments[1] != "help" else { StandardStreams.out(help); return ExitCode.success.rawValue }
            guard let command = subcommands.first(where: { $0.name == arguments[1] }) else {
                StandardStreams.error("vtk help: unknown command '\(arguments[1])'\n\n\(help)")
                return ExitCode.usage.rawValue
            }
            StandardStreams.out(command.help)
            return ExitCode.success.rawValue
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            if let near = Suggestions.nearest(first, among: subcommands.map(\.name) + ["help"]) {
                StandardStreams.error("vtk: unknown command '\(first)'; did you mean \(near)? (see 'vtk --help')\n")
            } else {
                StandardStreams.error("vtk: unknown command '\(first)'\n\n\(help)")
            }
            return ExitCode.usage.rawValue
        }
        do {
            let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), options: command.options, command: command.name)
            if parsed.has("help") {
                StandardStreams.out(command.help)
                return ExitCode.success.rawValue
            }
            let code = command.interruptible ? try Interruption.polling { () throws(CommandFailure) in try command.run(parsed) } : try command.run(parsed)
            return Interruption.requested ? ExitCode.interrupted.rawValue : code.rawValue
        } catch {
            StandardStreams.error(error.message.hasSuffix("\n") ? error.message : error.message + "\n")
            // Input cut short by the interruption (a pipe closed mid-frame) is the interruption's doing.
            return Interruption.requested && error.code != .usage ? ExitCode.interrupted.rawValue : error.code.rawValue
        }
    }

    public static let version = "0.1.0-dev"
}
