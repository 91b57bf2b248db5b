// libFuzzer target: vtk's command-line parsing (ArgumentParser and the typed option values). Built in one
// module with ArgumentParser.swift and the VTKCommandLine files it uses (Tools/Fuzz/build.py finds them), so
// internal API is reachable.
// fuzz-inside: Sources/VTKCommandLine/ArgumentParser.swift
// Input: arguments separated by NUL bytes.

/// Option tables shaped like vtk's commands (flags, values, short and long names).
private let table: [OptionSpec] = [
    .value("-o", "--output", valueName: "FILE", help: "output"),
    .value("--size", "-s", valueName: "WxH", help: "size"),
    .value("--bitrate", valueName: "BPS", help: "bit rate"),
    .value("--qp", valueName: "QP", help: "qp"),
    .value("--rate-control", valueName: "MODE", help: "mode"),
    .value("--min-psnr", valueName: "DB", help: "psnr"),
    .value("--frames", "-n", valueName: "N", help: "frames"),
    .flag("--md5", help: "md5"),
    .flag("--json", help: "json"),
    .flag("--psnr", help: "psnr"),
    .flag("-v", "--verbose", help: "verbose"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    _ = ArgumentParser.help(table)
    do {
        let parsed = try ArgumentParser.parse(arguments, options: table, command: "fuzz")
        let values = OptionValues(parsed: parsed, command: "fuzz")
        if let size = try? values.size("size") {
            precondition((1...16384).contains(size.width) && (1...16384).contains(size.height))
        }
        _ = try? values.int("qp", range: 0...51)
        _ = try? values.int("frames", range: 1...1_000_000)
        _ = try? values.double("min-psnr", range: 0...100)
        _ = try? values.choice("rate-control", ["cqp", "cbr", "vbr"])
        _ = try? values.conflict("md5", "json")
        for positional in parsed.positionals { precondition(arguments.contains(positional)) }
    } catch {
        precondition(error.code == .usage && !error.message.isEmpty)
    }
    return 0
}
