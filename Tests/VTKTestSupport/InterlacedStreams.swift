import Foundation

extension ConformanceStream {
    /// The rows of ../shared/conformance/h264-interlaced/reference.tsv: field pictures, PAFF, MBAFF and 4:0:0;
    /// empty when ../shared is absent.
    public static let interlaced = rows(of: "h264-interlaced")
}

extension GeneratedStream {
    /// MBAFF streams libx264 makes (`-flags +ildct`): top and bottom field first, CAVLC and CABAC, with and
    /// without B-frames, and one whose height is not a whole number of macroblock pairs (cropped). libx264
    /// cannot make PAFF field pictures; those come from ../shared.
    public static let mbaff: [GeneratedStream] = [
        GeneratedStream(name: "x264-mbaff-tff-cabac-b2-352x288", width: 352, height: 288, frames: 24,
                        encoderOptions: ["-c:v", "libx264", "-flags", "+ildct", "-coder", "1", "-bf", "2", "-x264-params", "tff=1:keyint=12:ref=3"]),
        GeneratedStream(name: "x264-mbaff-bff-cavlc-b2-352x288", width: 352, height: 288, frames: 24,
                        encoderOptions: ["-c:v", "libx264", "-flags", "+ildct", "-coder", "0", "-bf", "2", "-x264-params", "bff=1:keyint=12:ref=3"]),
        GeneratedStream(name: "x264-mbaff-tff-cavlc-p-352x288", width: 352, height: 288, frames: 20,
                        encoderOptions: ["-c:v", "libx264", "-flags", "+ildct", "-coder", "0", "-bf", "0", "-x264-params", "tff=1:ref=2"]),
        GeneratedStream(name: "x264-mbaff-bff-cabac-bpyramid-320x240", width: 320, height: 240, frames: 24,
                        encoderOptions: ["-c:v", "libx264", "-flags", "+ildct", "-coder", "1", "-bf", "3",
                                         "-x264-params", "bff=1:b-pyramid=normal:weightb=1:keyint=10:ref=4"]),
    ]
}
