import DecompressionSession
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
        let forced = try VideoCodec.forced(values)
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

extension ReceiveReport {
    /// Exit 3's message when packets were lost, frames flagged or the stream had problems; nil when it was clean.
    func damage(_ statistics: DecodeStatistics, command: String) -> CommandFailure? {
        guard lost > 0 || framesFlagged > 0 || statistics.problemCount > 0 || !problems.isEmpty else { return nil }
        var message = "vtk \(command): \(lost) packet(s) lost, \(framesFlagged) of \(framesDecoded) frame(s) flagged"
        let all = problems + statistics.problems
        if !all.isEmpty { message += ":\n" + all.prefix(10).map { "  \($0)" }.joined(separator: "\n") }
        if all.count > 10 { message += "\n  ... and more" }
        return CommandFailure(.input, message)
    }
}
