import MP4
import NALStream
import VideoDisplay
import VTKMedia

/// An MP4 file's video track played as the container gives it, read sample by sample as it plays: times
/// from the container, sync samples from `stss` (or the fragments' flags). What is kept of the file is one
/// entry per sync sample (its position and time), never the samples' bytes. With `loops`, the samples repeat
/// with their times shifted by the pass duration each pass.
public final class MP4PlaybackSource: PlaybackSource {
    public let path: String
    /// The track's codec, by its sample entry.
    public let codec: VideoCodec
    /// The track's parameter sets (avcC or hvcC), for the decoder.
    public let formatDescription: FormatDescription?
    public let frameDuration: MediaTime
    public let loops: Bool
    /// The earliest presentation time of a pass (that of the first group of pictures).
    public let firstTime: Double
    /// The last frame's end minus the first frame's time, once a pass has been read to its end.
    public private(set) var passDuration: Double?

    private var reader: MP4Reader
    /// Samples read ahead (the first group of pictures, to find the first time), handed out before the reader's.
    private var buffered: [MP4Sample] = []
    /// Sync samples read so far: position and start time; and the furthest position read.
    private var syncPoints: [(index: Int, time: Double)] = []
    private var indexedThrough = -1
    private var position = 0
    private var pass = 0
    private var latestEnd = -Double.infinity

    /// `frameRate` (--fps) overrides the samples' durations; without it, the first sample's, else 25 fps.
    public init(path: String, frameRate: (Int, Int)?, loops: Bool) throws(PlaybackError) {
        self.path = path
        self.loops = loops
        reader = try Self.open(path)
        codec = reader.codec
        formatDescription = reader.format
        // The first group of pictures holds the earliest picture.
        var syncs = 0
        while buffered.count < 64, let sample = try Self.read(reader, path: path) {
            if sample.isSync { syncs += 1 }
            if syncs > 1 { buffered.append(sample); break }
            buffered.append(sample)
        }
        guard let first = buffered.first else { throw .empty("no samples in \(path)") }
        let given = frameRate.flatMap { $0.0 > 0 ? MediaTime(value: Int64($0.1), timescale: Int32(clamping: $0.0)) : nil }
        frameDuration = given ?? (first.duration.seconds > 0 ? first.duration : MediaTime(value: 1, timescale: 25))
        firstTime = buffered.map { Self.startTime($0) }.min() ?? 0
    }

    private static func open(_ path: String) throws(PlaybackError) -> MP4Reader {
        do { return try MP4Reader(path: path) } catch { throw .container("\(path): \(error)") }
    }

    private static func read(_ reader: MP4Reader, path: String) throws(PlaybackError) -> MP4Sample? {
        do { return try reader.nextSample() } catch { throw .container("\(path): \(error)") }
    }

    /// A sync sample's time: the first frame decoding can start with.
    private static func startTime(_ sample: MP4Sample) -> Double {
        sample.presentationTime.isNumeric ? sample.presentationTime.seconds : sample.decodeTime.seconds
    }

    /// The next sample of the pass, noting sync samples read for the first time.
    private func nextOfPass() throws(PlaybackError) -> MP4Sample? {
        let sample = buffered.isEmpty ? try Self.read(reader, path: path) : buffered.removeFirst()
        guard let sample else {
            if passDuration == nil { passDuration = latestEnd - firstTime }
            return nil
        }
        if position > indexedThrough {
            indexedThrough = position
            if sample.isSync { syncPoints.append((position, Self.startTime(sample))) }
            latestEnd = max(latestEnd, sample.presentationTime.seconds + frameDuration.seconds)
        }
        position += 1
        return sample
    }

    public func next() throws(PlaybackError) -> PlaybackSample? {
        guard let sample = try nextOfPass() else {
            guard loops, position > 0 else { return nil }
            pass += 1
            try rewind(to: 0)
            return try next()
        }
        var buffer = sample.sampleBuffer(nalUnitLengthSize: reader.nalUnitLengthSize)
        if pass > 0, let passDuration {
            let shift = MediaTime(value: Int64((passDuration * Double(pass) * 90000).rounded()), timescale: 90000)
            if buffer.presentationTime.isNumeric { buffer.presentationTime = buffer.presentationTime + shift }
            if buffer.decodeTime.isNumeric { buffer.decodeTime = buffer.decodeTime + shift }
        }
        return PlaybackSample(buffer)
    }

    /// Reopens the file at sample `index` (the reader reads forward only).
    private func rewind(to index: Int) throws(PlaybackError) {
        reader = try Self.open(path)
        buffered = []
        position = 0
        while position < index, try Self.read(reader, path: path) != nil { position += 1 }
    }

    @discardableResult
    public func seek(to time: Double) throws(PlaybackError) -> Double {
        let passLength = passDuration ?? .infinity
        pass = loops && passLength.isFinite && passLength > 0 ? max(0, Int(((time - firstTime) / passLength).rounded(.down))) : 0
        let shift = passLength.isFinite ? Double(pass) * passLength : 0
        let within = time - shift
        // Sync samples past the part read so far: read on (noting them) until one lies past the target.
        if passDuration == nil, syncPoints.last.map({ $0.time <= within + 1e-9 }) ?? true {
            try rewind(to: indexedThrough + 1)
            while let _ = try nextOfPass() {
                if let last = syncPoints.last, last.time > within + 1e-9 { break }
            }
        }
        let point = syncPoints.last { $0.time <= within + 1e-9 } ?? syncPoints.first
        try rewind(to: point?.index ?? 0)
        return (point?.time ?? firstTime) + shift
    }
}
