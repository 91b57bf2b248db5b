import H264Bitstream
import H265Bitstream
import MP4
import RTP
import RTPSession
import VTKMedia

/// `vtk receive --copy`: the access units as they came, without decoding, as `ffmpeg -c copy` records: an
/// Annex B stream (.h264/.264, .h265/.265), or an MP4 (avc1 with avcC, hvc1 with hvcC, from the parameter
/// sets of the SDP and of the stream; decode order is arrival order, presentation times are the RTP timestamps).
final class StreamRecorder: AccessUnitRecorder {
    private var annexB: OutputFile?
    private var mp4: MP4Writer?
    private let mp4Path: String?
    private let codec: VideoCodec
    private let command: String
    /// The stream's parameter sets (for the avcC or hvcC) by NAL unit type, each kept once, in order of arrival.
    private var parameterSets: [UInt8: [NALUnit]] = [:]
    private var lastTicks: Int64?
    /// Access units with a picture written.
    private(set) var pictures = 0

    /// The output's extensions by codec.
    static func isCopyOutput(_ path: String) -> Bool { ["h264", "264", "h265", "265", "hevc", "mp4"].contains(ext(path)) }
    private static func ext(_ path: String) -> String { path.split(separator: "/").last?.split(separator: ".").dropFirst().last?.lowercased() ?? "" }

    init(path: String, codec: VideoCodec, command: String) throws(CommandFailure) {
        self.command = command
        self.codec = codec
        let ext = Self.ext(path)
        let wanted: VideoCodec? = ["h264", "264"].contains(ext) ? .h264 : ["h265", "265", "hevc"].contains(ext) ? .h265 : nil
        if let wanted, wanted != codec {
            throw CommandFailure(.usage, "vtk \(command): -o \(path) is \(wanted.name), and the stream is \(codec.name)")
        }
        if ext == "mp4" {
            mp4Path = path
        } else {
            mp4Path = nil
            annexB = try OutputFile(path, command: command)
        }
    }

    /// NAL unit types of the parameter sets: SPS 7, PPS 8 (H.264 7.4.1); VPS 32, SPS 33, PPS 34 (H.265 7.4.2.2).
    private var parameterSetTypes: [UInt8] { codec.parameterSetTypes }

    private func nalType(_ unit: NALUnit) -> UInt8 { unit.bytes.isEmpty ? 0 : codec.nalUnitType(unit) }

    /// Writes one access unit; `ticks` is its RTP time (90 kHz) from the first frame.
    func record(_ nalUnits: [NALUnit], ticks: Int64?, isKeyframe: Bool, hasPicture: Bool) throws(CommandFailure) {
        if hasPicture { pictures += 1 }
        if let annexB {
            for unit in nalUnits { try annexB.write([0, 0, 0, 1] + unit.bytes) }
            return
        }
        guard let path = mp4Path else { return }
        for unit in nalUnits {
            let type = nalType(unit)
            if parameterSetTypes.contains(type), !(parameterSets[type] ?? []).contains(where: { $0.bytes == unit.bytes }) {
                parameterSets[type, default: []].append(unit)
            }
        }
        guard hasPicture else { return }
        if mp4 == nil {
            // Nothing is decodable before the parameter sets.
            guard parameterSetTypes.allSatisfy({ !(parameterSets[$0] ?? []).isEmpty }) else { return }
            mp4 = try makeWriter(path)
        }
        let time = ticks ?? (lastTicks.map { $0 + 3000 } ?? 0)
        lastTicks = time
        var sample: [UInt8] = []
        for unit in nalUnits {
            let count = UInt32(unit.bytes.count)
            sample += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + unit.bytes
        }
        // Decode order is arrival order; the writer makes the decode times from the presentation times (B-frames).
        do { try mp4?.appendInDecodeOrder(sample, presentationTicks: time, isSync: isKeyframe) } catch {
            throw CommandFailure(.output, "vtk \(command): writing '\(path)' (RTP time \(time)): \(error)")
        }
    }

    private func makeWriter(_ path: String) throws(CommandFailure) -> MP4Writer {
        do {
            let format = try codec.formatDescription(parameterSets: parameterSetTypes.flatMap { parameterSets[$0] ?? [] })
            return try MP4Writer(path: path, format: format, timescale: 90000)
        } catch {
            throw CommandFailure(.output, "vtk \(command): cannot write '\(path)': \(error)")
        }
    }

    func finish() throws(CommandFailure) {
        do { try mp4?.finish() } catch { throw CommandFailure(.output, "vtk \(command): finishing '\(mp4Path ?? "")': \(error)") }
    }
}
