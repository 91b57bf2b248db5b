import Foundation
import H264Bitstream
import MP4
import VTKMedia
import VTKTestSupport
@testable import DecompressionSession

/// Files the MP4 tests make with ffmpeg, cached per test process.
enum MP4Fixtures {
    enum Muxing: String, CaseIterable, Sendable, CustomStringConvertible {
        case plain, faststart, fragmented
        var movflags: [String] {
            switch self {
            case .plain: []
            case .faststart: ["-movflags", "+faststart"]
            case .fragmented: ["-movflags", "frag_keyframe+empty_moov"]
            }
        }
        var description: String { rawValue }
    }

    /// Tests run in parallel: a fixture is made once, under a lock, and appears under its name only when
    /// complete (ffmpeg writes a temporary name that is then moved).
    private static let lock = NSLock()

    static func made(_ out: URL, _ arguments: (URL) -> [String]) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        if FileManager.default.fileExists(atPath: out.path) { return out }
        let partial = out.deletingLastPathComponent().appendingPathComponent("partial-" + out.lastPathComponent)
        let result = try ProcessRunner.run("ffmpeg", arguments(partial))
        guard result.status == 0 else { throw FixtureError.ffmpeg(result.stderrText) }
        try FileManager.default.moveItem(at: partial, to: out)
        return out
    }

    /// `ffmpeg -i <stream> -c copy [movflags] out.mp4`.
    static func remux(_ stream: URL, _ muxing: Muxing) throws -> URL {
        let out = TestPaths.scratch.appendingPathComponent("\(stream.deletingPathExtension().lastPathComponent)-\(muxing).mp4")
        return try made(out) { ["-v", "error", "-y", "-i", stream.path, "-c", "copy"] + muxing.movflags + [$0.path] }
    }

    /// `ffmpeg -f lavfi -i testsrc2=size=320x240:rate=25 -frames 40 -c:v libx264 -bf 3 out.mp4` (B-frames and an
    /// edit list), in the given muxing.
    static func x264BFrames(_ muxing: Muxing) throws -> URL {
        let out = TestPaths.scratch.appendingPathComponent("x264-bf3-\(muxing).mp4")
        return try made(out) {
            ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "40", "-pix_fmt", "yuv420p",
             "-c:v", "libx264", "-bf", "3", "-f", "mp4"] + muxing.movflags + [$0.path]
        }
    }

    enum FixtureError: Error, CustomStringConvertible {
        case ffmpeg(String)
        var description: String { switch self { case .ffmpeg(let text): "ffmpeg failed: \(text)" } }
    }
}

/// One packet as ffprobe lists it.
struct ProbedPacket: Equatable, CustomStringConvertible {
    var pts: Int64
    var dts: Int64
    var size: Int
    var isKey: Bool
    var description: String { "pts \(pts) dts \(dts) size \(size)\(isKey ? " K" : "")" }
}

enum FFprobe {
    /// `ffprobe -show_packets -show_entries packet=pts,dts,flags,size`, in file order.
    static func packets(_ url: URL) throws -> [ProbedPacket] {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_packets",
                                                       "-show_entries", "packet=pts,dts,size,flags", "-of", "csv=p=0", url.path])
        return result.stdoutText.split(separator: "\n").compactMap { line in
            // csv order follows the entries ffprobe prints: pts,dts,size,flags
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4, let pts = Int64(f[0]), let dts = Int64(f[1]), let size = Int(f[2]) else { return nil }
            return ProbedPacket(pts: pts, dts: dts, size: size, isKey: f[3].hasPrefix("K"))
        }
    }

    /// One stream entry value (e.g. `r_frame_rate`, `nb_frames`, `duration`, `width`).
    static func streamEntries(_ url: URL, _ entries: [String]) throws -> [String: String] {
        let result = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                                                       "stream=" + entries.joined(separator: ","), "-of", "default=nw=1", url.path])
        var out: [String: String] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { out[parts[0]] = parts[1] }
        }
        return out
    }

    /// Top-level box types in file order (to check moov before mdat).
    static func topLevelBoxes(_ url: URL) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: url))
        var out: [String] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            out.append(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self))
            if size == 1 {
                size = bytes[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) }
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= 8 else { break }
            offset += size
        }
        return out
    }
}

extension MP4Sample {
    var probed: ProbedPacket { ProbedPacket(pts: presentationTime.value, dts: decodeTime.value, size: data.count, isKey: isSync) }
}

/// Samples of an elementary stream's access units, length-prefixed with 4-byte lengths.
func accessUnitSamples(_ stream: URL) throws -> [[UInt8]] {
    let bytes = [UInt8](try Data(contentsOf: stream))
    return try AccessUnitAssembler.accessUnits(in: bytes).map { try LengthPrefixedSample.sample($0.nalUnits, lengthSize: 4) }
}

/// Decodes every sample of `reader` through vtk's decoder (vtksoft); MD5 of all frames' I420 bytes.
func decodeThroughVTK(_ reader: MP4Reader) throws -> (md5: String, frames: Int) {
    let session = try H264DecompressionSession(formatDescription: reader.format?.avc, device: .software, outputFormat: .i420)
    defer { session.invalidate() }
    var md5 = MD5()
    var frames = 0
    func take(_ decoded: [DecodedFrame]) {
        for frame in decoded { md5.update(frame.pixelBuffer.packedBytes); frames += 1 }
    }
    while let sample = try reader.nextSample() {
        take(try session.decode(sample.sampleBuffer(nalUnitLengthSize: reader.nalUnitLengthSize)))
    }
    take(try session.finishDelayedFrames())
    return (md5.finalize(), frames)
}

/// FFmpeg's software decode MD5 of all frames as I420.
func ffmpegMD5(_ url: URL, extra: [String] = []) throws -> String? {
    let result = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error"] + extra + ["-i", url.path, "-pix_fmt", "yuv420p", "-f", "md5", "-"])
    return result.stdoutText.split(separator: "\n").first { $0.hasPrefix("MD5=") }.map { String($0.dropFirst(4)) }
}

enum Availability {
    static let ffmpeg = ProcessRunner.hasFFmpeg
    static let ffmpegMessage: Comment = "ffmpeg/ffprobe are not installed: skipping the MP4 checks that need them"
    static let driver = VTKSoftDriverLocation.directory != nil
    static let driverMessage: Comment = Comment(rawValue: VTKSoftDriverLocation.missingMessage)
}

import Testing
