import CompressionSession
import Foundation
import H264Bitstream
import VideoAcceleration
import VTKMedia
import VTKTestSupport

/// Raw frames on disk (I420 or NV12, no padding), read into pixel buffers.
struct RawClip: Sendable, CustomStringConvertible {
    let name: String
    let url: URL
    let format: PixelFormat
    let width: Int
    let height: Int
    let frames: Int
    let framesPerSecond: Int
    var description: String { name }

    var frameSize: Int { PixelBuffer.frameSize(format: format, width: width, height: height) }

    /// Frame `index` from the mapped file, into `buffer` when it is a pool buffer of the right kind.
    func frame(_ index: Int, from data: Data, into buffer: PixelBuffer? = nil) -> PixelBuffer {
        var out = buffer.flatMap { $0.format == format ? $0 : nil } ?? PixelBuffer(format: format, width: width, height: height)
        var offset = index * frameSize
        for i in out.planes.indices {
            let count = out.planes[i].bytes.count
            out.planes[i].bytes.withUnsafeMutableBytes { dst in
                data.withUnsafeBytes { src in dst.baseAddress!.copyMemory(from: src.baseAddress! + offset, byteCount: count) }
            }
            offset += count
        }
        out.presentationTime = MediaTime(value: Int64(index), timescale: Int32(framesPerSecond))
        return out
    }

    /// ffmpeg input options reading this file.
    var ffmpegInput: [String] {
        ["-f", "rawvideo", "-pix_fmt", format == .nv12 ? "nv12" : "yuv420p", "-s", "\(width)x\(height)", "-r", "\(framesPerSecond)", "-i", url.path]
    }
}

/// The sources the tests encode: ../shared's clips when present, else synthetic ones made with ffmpeg.
enum Sources {
    static var ffmpegMissing: Bool { !ProcessRunner.hasFFmpeg }
    static let ffmpegMissingMessage = "ffmpeg/ffprobe not installed: skipping the encode checks"

    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vtk-encode-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Raw sources, kept between runs (the 720p one is 415 MB: made once, not once per test process).
    static let cache: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vtk-encode-sources")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Makes a raw file with ffmpeg unless an earlier run made it; written aside and renamed, so a
    /// concurrent run never reads half a file.
    static func make(_ name: String, _ arguments: [String]) throws -> URL {
        let url = cache.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let partial = directory.appendingPathComponent(name + ".part")
        let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments + ["-f", "rawvideo", partial.path])
        guard result.status == 0 else { throw FixtureError.ffmpeg(result.stderrText) }
        if rename(partial.path, url.path) != 0 { try? FileManager.default.removeItem(at: partial) }
        return url
    }

    static func synthetic(_ name: String, width: Int, height: Int, frames: Int, rate: Int, format: PixelFormat = .i420) throws -> RawClip {
        let url = try make("\(name).yuv", ["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate)", "-frames:v", "\(frames)",
                                           "-pix_fmt", format == .nv12 ? "nv12" : "yuv420p"])
        return RawClip(name: name, url: url, format: format, width: width, height: height, frames: frames, framesPerSecond: rate)
    }

    /// The 320x192 camera clip (9 frames) and the 152x100 one (10 frames, cropping), or synthetic stand-ins.
    static func smallClips() throws -> [RawClip] {
        guard let shared = TestPaths.shared else {
            return [try synthetic("testsrc2-320x192", width: 320, height: 192, frames: 9, rate: 12),
                    try synthetic("testsrc2-152x100", width: 152, height: 100, frames: 10, rate: 25)]
        }
        let media = shared.appendingPathComponent("media")
        return [RawClip(name: "CiscoVT2people 320x192", url: media.appendingPathComponent("CiscoVT2people_320x192_12fps.yuv"),
                        format: .i420, width: 320, height: 192, frames: 9, framesPerSecond: 12),
                RawClip(name: "Static 152x100", url: media.appendingPathComponent("Static_152_100.yuv"),
                        format: .i420, width: 152, height: 100, frames: 10, framesPerSecond: 25)]
    }

    /// 300 frames of 720p as NV12: the conformance stream decoded by ffmpeg, or testsrc2.
    static let hd: Result<RawClip, Error> = Result {
        guard let shared = TestPaths.shared else {
            return try synthetic("testsrc2-1280x720", width: 1280, height: 720, frames: 300, rate: 30, format: .nv12)
        }
        let stream = shared.appendingPathComponent("conformance/h264/VID_1280x720_cavlc_temporal_direct.264")
        let url = try make("VID_1280x720_cavlc_temporal_direct-300.nv12", ["-i", stream.path, "-frames:v", "300", "-pix_fmt", "nv12"])
        return RawClip(name: "VID 1280x720", url: url, format: .nv12, width: 1280, height: 720, frames: 300, framesPerSecond: 30)
    }
}

enum FixtureError: Error, CustomStringConvertible {
    case ffmpeg(String)
    var description: String {
        switch self { case .ffmpeg(let text): return "ffmpeg failed: \(text.prefix(600))" }
    }
}

/// One encode: its samples, format description and the Annex B file written from them.
struct EncodeRun: Sendable {
    let samples: [SampleBuffer]
    let formatDescription: H264FormatDescription
    let file: URL
    let bytes: [UInt8]
    let seconds: Double

    /// Bits per second over the whole stream at `framesPerSecond`.
    func bitRate(framesPerSecond: Int) -> Double {
        Double(bytes.count * 8) * Double(framesPerSecond) / Double(samples.count)
    }
}

enum Encoder {
    /// Encodes `clip` through vtksoft, forcing keyframes at `forceKeyFrames`, and writes `<name>.h264`.
    static func run(_ clip: RawClip, _ properties: CompressionProperties, name: String, forceKeyFrames: Set<Int> = [],
                    frames: Int? = nil) throws -> EncodeRun {
        let start = Date()
        let session = try CompressionSession(width: clip.width, height: clip.height, properties: properties, device: .software)
        try session.prepareToEncodeFrames()
        let data = try Data(contentsOf: clip.url, options: .alwaysMapped)
        var samples: [SampleBuffer] = []
        for index in 0..<(frames ?? clip.frames) {
            let buffer = clip.frame(index, from: data, into: clip.format == .nv12 ? session.pixelBufferPool.makePixelBuffer() : nil)
            samples += try session.encodeFrame(buffer, forceKeyFrame: forceKeyFrames.contains(index))
        }
        samples += try session.completeFrames()
        guard let description = session.formatDescription else { throw FixtureError.ffmpeg("no format description") }
        let bytes = try samples.annexBStream()
        let file = Sources.directory.appendingPathComponent("\(name).h264")
        try Data(bytes).write(to: file)
        return EncodeRun(samples: samples, formatDescription: description, file: file, bytes: bytes, seconds: Date().timeIntervalSince(start))
    }

    static func properties(_ rate: CompressionProperties.RateControl = .constantQP, qp: Int = 27, bitRate: Int? = nil,
                           frameRate: Int, profile: CompressionProperties.Profile = .high) -> CompressionProperties {
        var p = CompressionProperties()
        p.rateControl = rate
        p.quantizer = qp
        p.averageBitRate = bitRate
        p.expectedFrameRate = Double(frameRate)
        p.profile = profile
        return p
    }

    /// The 720p encodes several tests share, each made once.
    static let hdCQP = Result { try run(Sources.hd.get(), properties(frameRate: 30), name: "hd-cqp27") }
    static let hdCBR1M = Result { try run(Sources.hd.get(), properties(.constantBitRate, bitRate: 1_000_000, frameRate: 30), name: "hd-cbr1M") }
    static let hdCBR2M = Result { try run(Sources.hd.get(), properties(.constantBitRate, bitRate: 2_000_000, frameRate: 30), name: "hd-cbr2M") }
}

/// What FFmpeg says about a stream.
enum FFprobe {
    /// stderr of a full software decode (empty when clean).
    static func decodeErrors(_ file: URL) throws -> String {
        try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", file.path, "-f", "null", "-"]).stderrText
    }

    /// "width,height,frames" after decoding every frame.
    static func sizeAndFrames(_ file: URL) throws -> String {
        try ProcessRunner.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                          "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", file.path])
            .stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Indices of the frames FFmpeg decodes as key frames, and each frame's picture type.
    static func keyFrames(_ file: URL) throws -> (keys: [Int], types: String) {
        let text = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_frames",
                                                     "-show_entries", "frame=key_frame,pict_type", "-of", "csv=p=0", file.path]).stdoutText
        let rows = text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        let keys = rows.enumerated().filter { $0.element.first == "1" }.map(\.offset)
        return (keys, rows.map { $0.count > 1 ? $0[1] : "?" }.joined())
    }

    /// profile name as ffprobe reports it.
    static func profile(_ file: URL) throws -> String {
        try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile", "-of", "csv=p=0", file.path])
            .stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
