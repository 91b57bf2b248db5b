import H264Bitstream
import H265Bitstream
import MP4
import VTKMedia

/// The samples of a file for `vtk play`, in decoding order with their times: an MP4's as the container
/// gives them, an Annex B stream's one access unit per sample, `frameDuration` apart in decoding order and
/// timed by display order (``DisplayOrder``). Sync samples (IDR, IRAP
/// or recovery point) carry the parameter sets in force, so decoding can start at any of them (a seek).
/// With `loops`, the samples repeat with their times shifted by ``passDuration`` each pass.
final class PlaybackSource {
    let codec: VideoCodec
    let frameDuration: Double
    /// How long one pass lasts: the last frame's end minus the first frame's time.
    let passDuration: Double
    let loops: Bool
    /// The MP4 track's parameter sets (avcC or hvcC), for the decoder.
    let formatDescription: FormatDescription?
    private let samples: [SampleBuffer]
    private var position = 0
    private var pass = 0

    var sampleCount: Int { samples.count }

    /// `frameRate`: --fps, for streams whose own timing is missing; else the stream's VUI timing, else 25.
    init(input: InputFile, frameRate: (Int, Int)?, loops: Bool, command: String) throws(CommandFailure) {
        self.loops = loops
        if let mp4 = try MP4Input.open(input, command: command) {
            codec = mp4.reader.isHEVC ? .h265 : .h264
            formatDescription = mp4.formatDescription.map { .h264($0) } ?? mp4.reader.hevcFormatDescription.map { .h265($0) }
            let read: [MP4Sample]
            do { read = try mp4.reader.readAll() } catch { throw CommandFailure(.input, "vtk \(command): \(input.displayName): \(error)") }
            samples = read.map { $0.sampleBuffer(nalUnitLengthSize: mp4.reader.nalUnitLengthSize) }
            let given = frameRate.map { Double($0.1) / Double($0.0) }
            frameDuration = given ?? read.first.map { $0.duration.seconds }.flatMap { $0 > 0 ? $0 : nil } ?? 1.0 / 25
            let times = samples.map(\.presentationTime.seconds)
            passDuration = (times.max() ?? 0) - (times.min() ?? 0) + frameDuration
        } else {
            var bytes: [UInt8] = []
            while true {
                let chunk = try input.read()
                if chunk.isEmpty { break }
                bytes += chunk
            }
            codec = CodecDetection.detect(annexB: Array(bytes.prefix(1 << 16)))
            formatDescription = nil
            var units: [(data: [UInt8], isSync: Bool)] = []
            var streamRate: (numerator: Int, denominator: Int)?
            let displayOrder: [Int: Int]
            switch codec {
            case .h264:
                let pictures = AccessUnitAssembler.accessUnits(in: bytes).filter(\.hasPicture)
                for unit in pictures {
                    let isSync = unit.isIDR || unit.recoveryPoint != nil
                    let sets = unit.parameterSets
                    if streamRate == nil { streamRate = (try? H264FormatDescription(parameterSets: sets))?.frameRate }
                    let head = isSync ? sets.spsNALUnits.sorted { $0.key < $1.key }.map(\.value) + sets.ppsNALUnits.sorted { $0.key < $1.key }.map(\.value) : []
                    units.append((AnnexBScanner.byteStream(head + unit.nalUnits), isSync))
                }
                displayOrder = DisplayOrder.of(h264: pictures)
            default:
                let pictures = H265AccessUnitAssembler.accessUnits(in: bytes).filter(\.hasPicture)
                for unit in pictures {
                    let isSync = unit.slices[0].header.nalUnitType.isIRAP || unit.recoveryPocCount != nil
                    let sets = unit.parameterSets
                    if streamRate == nil { streamRate = (try? H265FormatDescription(parameterSets: sets))?.frameRate }
                    let head = isSync ? [sets.vpsNALUnits, sets.spsNALUnits, sets.ppsNALUnits].flatMap { $0.sorted { $0.key < $1.key }.map(\.value) } : []
                    units.append((AnnexBScanner.byteStream(head + unit.nalUnits), isSync))
                }
                displayOrder = DisplayOrder.of(h265: pictures)
            }
            guard !units.isEmpty else { throw CommandFailure(.input, "vtk \(command): no coded pictures in \(input.displayName)") }
            let rate = frameRate ?? streamRate.map { ($0.numerator, $0.denominator) } ?? (25, 1)
            let duration = MediaTime(value: Int64(rate.1), timescale: Int32(clamping: rate.0))
            frameDuration = duration.seconds
            // Each picture is due at its display position (a CRA's leading pictures come before it, a B picture
            // before the P decoded ahead of it); one never output has no time.
            samples = units.enumerated().map { index, unit in
                SampleBuffer(data: unit.data, framing: .annexB, presentationTime: displayOrder[index].map { duration * Int64($0) } ?? .invalid,
                             decodeTime: duration * Int64(index), duration: duration, isSync: unit.isSync)
            }
            passDuration = Double(samples.count) * frameDuration
        }
        guard !samples.isEmpty else { throw CommandFailure(.input, "vtk \(command): no samples in \(input.displayName)") }
    }

    /// The next sample in decoding order, times shifted for the pass; nil at the end (never when looping).
    func next() -> SampleBuffer? {
        if position == samples.count {
            guard loops else { return nil }
            position = 0
            pass += 1
        }
        var sample = samples[position]
        position += 1
        if pass > 0 {
            let shift = MediaTime(value: Int64((passDuration * Double(pass) * 90000).rounded()), timescale: 90000)
            if sample.presentationTime.isNumeric { sample.presentationTime = sample.presentationTime + shift }
            if sample.decodeTime.isNumeric { sample.decodeTime = sample.decodeTime + shift }
        }
        return sample
    }

    /// A sync sample's time: the first frame decoding can start with.
    private func startTime(_ sample: SampleBuffer) -> Double {
        sample.presentationTime.isNumeric ? sample.presentationTime.seconds : sample.decodeTime.seconds
    }

    /// The time of the first frame of a pass.
    var firstTime: Double { samples.map(startTime).min() ?? 0 }

    /// Goes to the last sync sample at or before `time` (the first one when none is), in the pass `time` falls in
    /// when looping; returns the time decoding starts from.
    @discardableResult
    func seek(to time: Double) -> Double {
        pass = loops ? max(0, Int(((time - firstTime) / passDuration).rounded(.down))) : 0
        let within = time - Double(pass) * passDuration
        let syncs = samples.indices.filter { samples[$0].isSync }
        position = syncs.last { startTime(samples[$0]) <= within + 1e-9 } ?? syncs.first ?? 0
        return startTime(samples[position]) + Double(pass) * passDuration
    }
}
