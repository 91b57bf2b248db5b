import Foundation
import Testing
import VTKTestSupport

/// What the FFmpeg encode tests (h264_vaapi and hevc_vaapi through vtksoft's engines) check alike: the
/// stream FFmpeg wrote decodes with no error line and every frame, with B pictures exactly where asked,
/// and the driver's reconstructions, put in display order, equal the decoded frames.
enum FFmpegEncodeCheck {
    /// One FFmpeg encoder configuration, a test argument.
    struct Configuration: Sendable, CustomStringConvertible {
        let arguments: [String]
        var description: String { arguments.joined(separator: " ") }
        var bFrames: Bool { arguments.contains("-bf") && arguments[arguments.firstIndex(of: "-bf")! + 1] != "0" }
    }

    /// ffprobe's picture types (every frame, B pictures where `configuration` asks) and FFmpeg's decode (no
    /// error line): the frame MD5s of the decode (`decodeOptions` before the framemd5 muxer's own).
    static func decodedFrameMD5s(_ output: URL, frames: Int, configuration: Configuration, decodeOptions: [String] = []) throws -> [String] {
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pict_type",
                                                     "-of", "csv=p=0", output.path])
        #expect(probe.stderrText.isEmpty, "\(probe.stderrText.prefix(400))")
        let types = probe.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(types.count == frames)
        #expect(types.contains("B") == configuration.bFrames, "picture types \(types)")
        let decode = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output.path, "-f", "framemd5"] + decodeOptions + ["-"])
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText.prefix(400))")
        let decoded = decode.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
        #expect(decoded.count == frames)
        return decoded
    }

    /// The captured reconstruction MD5s in display order: by IDR period, then POC.
    static func displayOrder(_ pictures: [(idr: Bool, poc: Int, reconstructionMD5: String?)]) -> [String?] {
        var period = -1
        return pictures.map { p -> (Int, Int, String?) in
            if p.idr { period += 1 }
            return (period, p.poc, p.reconstructionMD5)
        }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }
}
