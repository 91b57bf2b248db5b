import DecompressionSession
import H264Bitstream
import H265Bitstream
import RTP

/// Where `vtk receive` and `vtk play` listen: `rtp://@:PORT` (the codec from --codec, H.264 by default) or
/// an SDP file, which gives the port, payload type, codec (its rtpmap) and parameter sets.
struct RTPSource {
    let port: Int
    let description: SessionDescription?
    let codec: VideoCodec

    /// An INPUT naming a live source rather than a file of samples.
    static func isLive(_ text: String) -> Bool { text.hasPrefix("rtp://") || text.lowercased().hasSuffix(".sdp") }

    init(_ text: String, values: OptionValues, command: String) throws(CommandFailure) {
        let forced = try CodecDetection.forced(values)
        if text.hasPrefix("rtp://") {
            do { port = try RTPURL(text).port } catch { throw CommandFailure(.usage, "vtk \(command): \(error)") }
            description = nil
            codec = forced ?? .h264
            return
        }
        if forced != nil { throw CommandFailure(.usage, "vtk \(command): --codec goes with rtp://@:PORT; an SDP names its codec in its rtpmap") }
        let input = try InputFile(text, command: command)
        var bytes: [UInt8] = []
        while true {
            let chunk = try input.read()
            if chunk.isEmpty { break }
            bytes += chunk
        }
        let parsed: SessionDescription
        do { parsed = try SessionDescription.parse(String(decoding: bytes, as: UTF8.self)) } catch {
            throw CommandFailure(.input, "vtk \(command): \(input.displayName): \(error)")
        }
        description = parsed
        port = parsed.port
        codec = parsed.codec == .h265 ? .h265 : .h264
    }
}

extension RTPSource {
    /// The options of a live source, one text for `vtk receive` and `vtk play`.
    static let latencyOption = OptionSpec.value("--latency", valueName: "MS", help: "jitter buffer: how long a packet waits for a missing earlier one (default 50)")
    static let timeoutOption = OptionSpec.value("--timeout", valueName: "S", help: "give up after S seconds without a packet (default 10)")
    static let codecOption = OptionSpec.value("--codec", valueName: "h264|h265", help: "the codec of rtp://@:PORT (default h264; an SDP names its own)")

    /// The receiver's settings from --latency and --timeout.
    static func settings(_ values: OptionValues) throws(CommandFailure) -> ReceiverSettings {
        var settings = ReceiverSettings()
        settings.latency = (try values.double("latency", range: 0...10_000) ?? 50) / 1000
        settings.timeout = try values.double("timeout", range: 0.1...1e6) ?? 10
        return settings
    }
}

extension ReceiveReport {
    /// The decoder's "byte N" (offsets in the NAL units it was fed, which mean nothing on RTP) as the RTP
    /// sequence number and timestamp of the first packet of the frame that held that byte.
    func placedInRTP(_ problem: String) -> String {
        problem.replacing(/byte (\d+)/) { match in
            guard let offset = Int(match.output.1), let origin = frameOrigins.last(where: { $0.offset <= offset }) else { return "RTP data" }
            return "the frame from RTP sequence number \(origin.sequence), timestamp \(origin.timestamp)"
        }
    }

    /// Exit 3's message when packets were lost, frames flagged or the stream had problems; nil when it was clean.
    func damage(_ statistics: DecodeStatistics, command: String) -> CommandFailure? {
        guard lost > 0 || framesFlagged > 0 || statistics.problemCount > 0 || !problems.isEmpty else { return nil }
        var message = "vtk \(command): \(lost) packet(s) lost, \(framesFlagged) of \(framesDecoded) frame(s) flagged"
        let all = problems + statistics.problems.map(placedInRTP)
        if !all.isEmpty { message += ":\n" + all.prefix(10).map { "  \($0)" }.joined(separator: "\n") }
        if all.count > 10 { message += "\n  ... and more" }
        return CommandFailure(.input, message)
    }
}
