// The vtk command. Subcommands arrive with issue 6; until then it says so clearly.
#if canImport(Glibc)
import Glibc
#endif

func printError(_ text: String) {
    var line = text.hasSuffix("\n") ? text : text + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: vtk <command> [options]

    commands:
      encode     raw NV12/I420 frames -> H.264            (not implemented yet)
      decode     H.264 -> NV12/I420 frames, MD5s          (not implemented yet)
      roundtrip  encode, decode back, measure PSNR/SSIM   (not implemented yet)

    """
if arguments.isEmpty || arguments[0] == "--help" || arguments[0] == "-h" || arguments[0] == "help" {
    print(usage, terminator: "")
    exit(arguments.isEmpty ? 2 : 0)
}
let name = arguments[0]
if ["encode", "decode", "roundtrip", "info", "probe"].contains(name) {
    printError("vtk \(name): not implemented yet")
    exit(5)
}
printError("vtk: unknown command '\(name)'\n\(usage)")
exit(2)
