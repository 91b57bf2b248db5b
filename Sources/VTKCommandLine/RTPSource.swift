import DecompressionSession
import H264Bitstream
import H265Bitstream
import NALStream
import RTP
import RTPSession
import VideoAcceleration
import VTKMedia

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
        codec = RTPCodecs.codec(of: parsed)
    }
}

extension RTPSource {
    /// The options of a live source, one text for `vtk receive` and `vtk play`.
    static let latencyOption = OptionSpec.value("--latency", valueName: "MS", help: "jitter buffer: how long a packet waits for a missing earlier one (default 50)")
    static let timeoutOption = OptionSpec.value("--timeout", valueName: "S", help: "give up after S seconds without a packet (default 10)")
    static let codecOption = OptionSpec.value("--codec", valueName: "h264|h265", help: "the codec of rtp://@:PORT (default h264; an SDP names its own)")

    /// The receiver's settings from --latency and --timeout; SIGINT/SIGTERM end the reception.
    static func settings(_ values: OptionValues) throws(CommandFailure) -> ReceiverSettings {
        var settings = ReceiverSettings()
        settings.latency = (try values.double("latency", range: 0...10_000) ?? 50) / 1000
        settings.timeout = try values.double("timeout", range: 0.1...1e6) ?? 10
        settings.shouldStop = { Interruption.requested }
        return settings
    }
}

extension CommandFailure {
    /// A session's failure as the command reports it: "vtk COMMAND: message", with the exit code of its kind.
    init(_ error: RTPSessionError, command: String) {
        let code: ExitCode = switch error.kind {
        case .input: .input
        case .device: .device
        case .output: .output
        case .usage: .usage
        }
        self.init(code, "vtk \(command): \(error.message)")
    }

    /// Any error of a session: a command's failure as it is, a session's with its kind, else `fallback`.
    static func from(_ error: any Error, command: String, fallback: ExitCode = .device) -> CommandFailure {
        if let failure = error as? CommandFailure { return failure }
        if let error = error as? RTPSessionError { return CommandFailure(error, command: command) }
        return CommandFailure(fallback, "vtk \(command): \(error)")
    }
}

extension LiveRTPFeed {
    /// Starts receiving from `source` (see ``LiveRTPFeed/init(port:description:codec:settings:device:outputFormat:command:)``).
    convenience init(source: RTPSource, settings: ReceiverSettings, device: VADeviceChoice, outputFormat: PixelFormat?, command: String) {
        self.init(port: source.port, description: source.description, codec: source.codec, settings: settings, device: device,
                  outputFormat: outputFormat, command: command)
    }
}

extension LiveRTPFeed.Outcome {
    /// The receiver or decoder failed (exit code and message as `vtk receive` gives them).
    var failure: CommandFailure? { error.map { CommandFailure($0, command: command) } }
}

/// The live input `vtk play` shows (RTPSession's), by the name the player knows.
typealias LiveRTPFeed = RTPSession.LiveRTPFeed
