#if canImport(Glibc)
import Glibc
#endif

// codec-floor: the codecs vtksoft wraps, called directly, one process per run: the floor that `make bench`
// measures vtk's decode and openh264 encode against (whole processes, start-up included). No Foundation.
//   codec-floor --libavcodec-decode FILE
//   codec-floor --openh264-encode FILE W H FRAMES qp=N|bps=N KEYINT OUTPUT
let argv = Array(CommandLine.arguments.dropFirst())
/// Exits with `status`, naming the failure on standard error when there is one.
func finish(_ status: Int32) -> Never {
    let reasons: [Int32: String] = [3: "cannot read the input, or it gave no frame", 4: "cannot open the codec",
                                    5: "cannot write the output", 6: "the encoder failed"]
    if let reason = reasons[status] { _ = "codec-floor: \(reason)\n".withCString { write(2, $0, strlen($0)) } }
    exit(status)
}
if argv.first == "--libavcodec-decode", argv.count == 2 { finish(Harness.libavcodecDecode(argv[1])) }
if argv.first == "--openh264-encode", argv.count == 8 {
    let mode = argv[5]
    let qp = mode.hasPrefix("qp=") ? Int32(mode.dropFirst(3)) : nil
    let bps = mode.hasPrefix("bps=") ? Int32(mode.dropFirst(4)) : nil
    if let width = Int(argv[2]), let height = Int(argv[3]), let frames = Int(argv[4]), let keyint = UInt32(argv[6]), qp != nil || bps != nil {
        finish(Harness.openh264Encode(argv[1], width: width, height: height, frames: frames, qp: qp, bitRate: bps, keyint: keyint, output: argv[7]))
    }
}
let usage = """
    usage: codec-floor --libavcodec-decode FILE
           codec-floor --openh264-encode FILE W H FRAMES qp=N|bps=N KEYINT OUTPUT

    """
_ = usage.withCString { write(2, $0, strlen($0)) }
exit(2)
