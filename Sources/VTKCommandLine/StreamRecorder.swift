import H264Bitstream
import MP4
import RTP
import VTKMedia

/// `vtk receive --copy`: the access units as they came, without decoding, as `ffmpeg -c copy` records: an
/// Annex B stream (.h264/.264, .h265/.265), or for H.264 an MP4 (avcC from the stream's SPS and PPS, times
/// from the RTP timestamps).
final class StreamRecorder {
    private var annexB: OutputFile?
    private var mp4: MP4Writer?
    private let mp4Path: String?
    private let command: String
    /// The stream's SPS and PPS (for the avcC), each kept once.
    private var sequenceParameterSets: [NALUnit] = []
    private var pictureParameterSets: [NALUnit] = []
    private var lastTicks: Int64?
    /// Access units with a picture written.
    private(set) var pictures = 0

    /// The output's extensions by codec.
    static func isCopyOutput(_ path: String) -> Bool { ["h264", "264", "h265", "265", "hevc", "mp4"].contains(ext(path)) }
    private static func ext(_ path: String) -> String { path.split(separator: "/").last?.split(separator: ".").dropFirst().last?.lowercased() ?? "" }

    init(path: String, codec: VideoCodec, command: String) throws(CommandFailure) {
        self.command = command
        let ext = Self.ext(path)
        let wanted: VideoCodec? = ["h264", "264"].contains(ext) ? .h264 : ["h265", "265", "hevc"].contains(ext) ? .h265 : nil
        if let wanted, wanted != codec {
            throw CommandFailure(.usage, "vtk \(command): -o \(path) is \(wanted == .h264 ? "H.264" : "H.265"), and the stream is \(codec == .h264 ? "H.264" : "H.265")")
        }
        if ext == "mp4" {
            guard codec == .h264 else {
                throw CommandFailure(.usage, "vtk \(command): --copy writes H.265 as an Annex B stream (-o out.265), not MP4; then: ffmpeg -i out.265 -c copy out.mp4")
            }
            mp4Path = path
        } else {
            mp4Path = nil
            annexB = try OutputFile(path, command: command)
        }
    }

    /// Writes one access unit; `ticks` is its RTP time (90 kHz) from the first frame.
    func record(_ nalUnits: [NALUnit], ticks: Int64?, isKeyframe: Bool, hasPicture: Bool) throws(CommandFailure) {
        if hasPicture { pictures += 1 }
        if let annexB {
            for unit in nalUnits { try annexB.write([0, 0, 0, 1] + unit.bytes) }
            return
        }
        guard let path = mp4Path else { return }
        for unit in nalUnits {
            let type = unit.bytes.first.map { $0 & 0x1F } ?? 0
            if type == 7, !sequenceParameterSets.contains(where: { $0.bytes == unit.bytes }) { sequenceParameterSets.append(unit) }
            if type == 8, !pictureParameterSets.contains(where: { $0.bytes == unit.bytes }) { pictureParameterSets.append(unit) }
        }
        guard hasPicture else { return }
        if mp4 == nil {
            guard !sequenceParameterSets.isEmpty, !pictureParameterSets.isEmpty else { return }  // nothing decodable before the parameter sets
            do {
                let format = try H264FormatDescription(sequenceParameterSets: sequenceParameterSets, pictureParameterSets: pictureParameterSets)
                mp4 = try MP4Writer(path: path, formatDescription: format, timescale: 90000)
            } catch {
                throw CommandFailure(.output, "vtk \(command): cannot write '\(path)': \(error)")
            }
        }
        let time = ticks ?? (lastTicks.map { $0 + 3000 } ?? 0)
        if let lastTicks, time <= lastTicks {
            throw CommandFailure(.output, "vtk \(command): --copy to MP4 needs pictures in display order (RTP time \(time) after \(lastTicks)): "
                                 + "the stream reorders (B-frames); record it as Annex B (-o out.h264)")
        }
        lastTicks = time
        var sample: [UInt8] = []
        for unit in nalUnits {
            let count = UInt32(unit.bytes.count)
            sample += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + unit.bytes
        }
        do { try mp4?.append(sample, presentationTime: MediaTime(value: time, timescale: 90000), isSync: isKeyframe) } catch {
            throw CommandFailure(.output, "vtk \(command): writing '\(path)': \(error)")
        }
    }

    func finish() throws(CommandFailure) {
        do { try mp4?.finish() } catch { throw CommandFailure(.output, "vtk \(command): finishing '\(mp4Path ?? "")': \(error)") }
    }
}
