import Foundation

/// H.264 streams that the tests make at run time with ffmpeg and libx264 from `testsrc2`, so that a
/// machine without ../shared still tests B-frames, CABAC, slices, weighted prediction and odd sizes.
/// Each is made once per machine and cached in the temporary directory under a name that encodes its
/// recipe.
public struct GeneratedStream: Sendable, CustomStringConvertible {
    public let name: String
    public let width: Int
    public let height: Int
    public let frames: Int
    /// ffmpeg output options (codec and encoder settings).
    public let encoderOptions: [String]
    /// ffmpeg's muxer: "h264", "hevc" for H.265 streams, or "mp4".
    public let muxer: String

    public var description: String { name }

    public init(name: String, width: Int, height: Int, frames: Int, encoderOptions: [String], muxer: String = "h264") {
        self.muxer = muxer
        self.name = name
        self.width = width
        self.height = height
        self.frames = frames
        self.encoderOptions = encoderOptions
    }

    /// The streams every machine makes: together they cover what the conformance streams cover.
    public static let standard: [GeneratedStream] = [
        GeneratedStream(name: "x264-baseline-cavlc-176x144", width: 176, height: 144, frames: 30,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "baseline", "-x264-params", "keyint=15:ref=3"]),
        GeneratedStream(name: "x264-main-bpyramid-cabac-320x240", width: 320, height: 240, frames: 40,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "main", "-x264-params", "bframes=3:b-pyramid=normal:ref=4:keyint=20:weightp=2"]),
        GeneratedStream(name: "x264-high-8x8-slices-odd-202x130", width: 202, height: 130, frames: 25,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "high", "-x264-params", "bframes=2:slices=4:8x8dct=1:ref=2:weightb=1:keyint=12"]),
        GeneratedStream(name: "x264-high-cavlc-intra-refresh-352x288", width: 352, height: 288, frames: 30,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "high", "-x264-params", "cabac=0:bframes=1:intra-refresh=1:keyint=10"]),
        GeneratedStream(name: "x264-high-scenecut-mmco-640x360", width: 640, height: 360, frames: 30,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "high", "-x264-params", "bframes=3:b-pyramid=strict:ref=5:keyint=8:min-keyint=2"]),
    ]

    private static let lock = NSLock()

    /// The stream's file, made with ffmpeg on first use. Throws when ffmpeg is missing or fails.
    public func url() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vtk-generated-streams")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let recipe = "\(width)x\(height)-\(frames)-" + encoderOptions.joined(separator: " ")
        let file = dir.appendingPathComponent("\(name)-\(String(UInt32(truncatingIfNeeded: recipe.hashValueStable), radix: 16)).\(muxer == "hevc" ? "265" : muxer == "mp4" ? "mp4" : "264")")
        Self.lock.lock()
        defer { Self.lock.unlock() }
        if FileManager.default.fileExists(atPath: file.path) { return file }
        let partial = file.appendingPathExtension("part")
        let result = try ProcessRunner.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=25",
                                                      "-frames:v", "\(frames)", "-pix_fmt", "yuv420p"] + encoderOptions + ["-f", muxer, partial.path])
        guard result.status == 0 else {
            throw GeneratedStreamError.ffmpegFailed(name, result.stderrText)
        }
        try FileManager.default.moveItem(at: partial, to: file)
        return file
    }
}

public enum GeneratedStreamError: Error, CustomStringConvertible {
    case ffmpegFailed(String, String)
    public var description: String {
        switch self { case let .ffmpegFailed(name, message): "ffmpeg could not make \(name): \(message)" }
    }
}

extension String {
    /// FNV-1a: stable across runs (unlike hashValue), for cache file names.
    var hashValueStable: UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}
