import DecompressionSession
import NALStream
import VideoDisplay
import VTKMedia

/// An Annex B stream (H.264 or H.265) played from its file, read in chunks as it plays: NAL units are
/// assembled into access units once, here, and handed to the decoder as they are (``PlaybackSample``
/// carries the access unit, not bytes to assemble again). Samples are `frameDuration` apart in decoding
/// order; the decoder's own output order times the frames (``SessionSampleDecoder``), and a sync sample's
/// presentation time is the display position where decoding from it starts (``DisplayPositionCounter``), so that a seek
/// lands where a decode from the start would have shown the same picture. What is kept of the stream is one
/// entry per sync sample (offset, position), never its bytes.
public final class AnnexBPlaybackSource<Codec: AnnexBPlaybackCodec>: PlaybackSource {
    public typealias AccessUnit = Codec.Assembler.AccessUnit
    /// One frame's duration: samples are this far apart in decoding order, and frames in display order.
    public let frameDuration: MediaTime
    public let loops: Bool
    /// Pictures in one pass, once a pass has been read to its end.
    public private(set) var pictureCount: Int?
    public var firstTime: Double { 0 }

    /// Where decoding can start: the access unit's first byte, its decoding position, the display position it
    /// starts at, the parameter sets in force, and the counting state before it.
    private struct SyncPoint {
        let offset: Int
        let decodeIndex: Int
        let displayIndex: Int
        let parameterSets: [NALUnit]
        let order: DisplayPositionCounter
    }
    private var syncPoints: [SyncPoint] = []
    /// Sync points are known up to this decoding position (the furthest the stream was read).
    private var indexedThrough = -1
    private let file: FileChunks
    private var cursor: Cursor
    private var pass = 0

    /// `frameRate`: given (--fps), else the stream's VUI timing, else 25. Reads up to the first coded picture,
    /// `chunkSize` bytes at a time.
    public init(path: String, frameRate: (Int, Int)?, loops: Bool, chunkSize: Int = 1 << 16) throws(PlaybackError) {
        self.loops = loops
        file = try FileChunks(path: path, chunkSize: chunkSize)
        cursor = Cursor(offset: 0, decodeIndex: 0, order: DisplayPositionCounter(), parameterSets: [])
        guard let first = try cursor.peek(file) else { throw .empty("no coded pictures in \(path)") }
        let rate = frameRate ?? Codec.frameRate(of: first).map { ($0.numerator, $0.denominator) } ?? (25, 1)
        frameDuration = MediaTime(value: Int64(rate.1), timescale: Int32(clamping: rate.0))
    }

    public func next() throws(PlaybackError) -> PlaybackSample? {
        guard let (unit, position) = try nextUnit() else {
            guard loops, pictureCount ?? 0 > 0 else { return nil }
            pass += 1
            cursor = Cursor(offset: 0, decodeIndex: 0, order: DisplayPositionCounter(), parameterSets: [])
            return try next()
        }
        let shift = frameDuration * Int64(pass * (pictureCount ?? 0))
        let sample = SampleBuffer(data: [], framing: .annexB,
                                  presentationTime: position.display.map { frameDuration * Int64($0) + shift } ?? .invalid,
                                  decodeTime: frameDuration * Int64(position.decode) + shift, duration: frameDuration,
                                  isSync: position.display != nil)
        return PlaybackSample(sample, accessUnit: unit)
    }

    /// The next access unit with its decoding position and, for a sync sample, its display position; notes
    /// the sync points of what is read for the first time.
    private func nextUnit() throws(PlaybackError) -> (AccessUnit, (decode: Int, display: Int?))? {
        guard let (unit, decode, display, order) = try cursor.take(file) else {
            if pictureCount == nil { pictureCount = cursor.decodeIndex }
            return nil
        }
        if decode > indexedThrough {
            indexedThrough = decode
            if let display {
                syncPoints.append(SyncPoint(offset: unit.offset, decodeIndex: decode, displayIndex: display,
                                            parameterSets: Codec.parameterSetNALUnits(of: unit), order: order))
            }
        }
        return (unit, (decode, display))
    }

    @discardableResult
    public func seek(to time: Double) throws(PlaybackError) -> Double {
        let passSeconds = pictureCount.map { Double($0) * frameDuration.seconds } ?? .infinity
        pass = loops && passSeconds > 0 && passSeconds.isFinite ? max(0, Int((time / passSeconds).rounded(.down))) : 0
        let within = time - Double(pass) * (passSeconds.isFinite ? passSeconds : 0)
        // Sync points past the part read so far: read on (indexing only) until one lies past the target.
        if pictureCount == nil, (syncPoints.last.map { Double($0.displayIndex) * frameDuration.seconds <= within + 1e-9 } ?? true) {
            var ahead = Cursor(offset: 0, decodeIndex: 0, order: DisplayPositionCounter(), parameterSets: [])
            if let last = syncPoints.last { ahead = Cursor(last) }
            cursor = ahead
            while try nextUnit() != nil {
                if let last = syncPoints.last, Double(last.displayIndex) * frameDuration.seconds > within + 1e-9 { break }
            }
        }
        let point = syncPoints.last { Double($0.displayIndex) * frameDuration.seconds <= within + 1e-9 } ?? syncPoints.first
        guard let point else {
            cursor = Cursor(offset: 0, decodeIndex: 0, order: DisplayPositionCounter(), parameterSets: [])
            return Double(pass) * (passSeconds.isFinite ? passSeconds : 0)
        }
        cursor = Cursor(point)
        return Double(point.displayIndex) * frameDuration.seconds + Double(pass) * (passSeconds.isFinite ? passSeconds : 0)
    }

    /// Reading position: the file offset, the NAL reader and assembler, the decoding position and display
    /// counting of the next access unit, and access units assembled but not yet handed out (a random access
    /// point waits until its leading pictures are counted).
    private struct Cursor {
        var offset: Int
        var base: Int
        var reader = AnnexBStreamReader()
        var assembler = Codec.Assembler()
        var decodeIndex: Int
        var order: DisplayPositionCounter
        var ready: [AccessUnit] = []
        var finished = false

        init(offset: Int, decodeIndex: Int, order: DisplayPositionCounter, parameterSets: [NALUnit]) {
            self.offset = offset
            base = offset
            self.decodeIndex = decodeIndex
            self.order = order
            // The parameter sets in force where reading starts, as the decoding process needs them.
            for unit in parameterSets { _ = assembler.push(unit) }
            _ = assembler.finish()
        }

        init(_ point: SyncPoint) {
            self.init(offset: point.offset, decodeIndex: point.decodeIndex, order: point.order, parameterSets: point.parameterSets)
        }

        /// The next access unit with a picture, without taking it.
        mutating func peek(_ file: FileChunks) throws(PlaybackError) -> AccessUnit? {
            try fill(file, count: 1)
            return ready.first
        }

        /// The next access unit with its decoding position, its display position when it is a sync sample,
        /// and the counting state before it.
        mutating func take(_ file: FileChunks) throws(PlaybackError) -> (AccessUnit, Int, Int?, DisplayPositionCounter)? {
            try fill(file, count: 1)
            guard let unit = ready.first else { return nil }
            let role = Codec.role(of: unit)
            var skipped = 0
            if role == .randomAccessPoint {
                // Its leading pictures follow it in decoding order, before any other picture (H.265 7.4.2.2).
                var index = 1
                while true {
                    try fill(file, count: index + 1)
                    guard index < ready.count else { break }
                    let next = Codec.role(of: ready[index])
                    guard next.isLeading else { break }
                    if next == .skippedLeading { skipped += 1 }
                    index += 1
                }
            }
            ready.removeFirst()
            let before = order
            let display = order.add(role, skippedLeading: skipped)
            defer { decodeIndex += 1 }
            return (unit, decodeIndex, display, before)
        }

        /// Reads until `count` access units with pictures are ready, or the file ends.
        private mutating func fill(_ file: FileChunks, count: Int) throws(PlaybackError) {
            while ready.count < count && !finished {
                let chunk = try file.read(at: offset, count: file.chunkSize)
                offset += chunk.count
                let units = chunk.isEmpty ? reader.finish() : reader.append(chunk)
                for unit in units {
                    if let au = assembler.push(NALUnit(bytes: unit.bytes, offset: base + unit.offset)), au.hasPicture { ready.append(au) }
                }
                if chunk.isEmpty {
                    ready += assembler.finish().filter(\.hasPicture)
                    finished = true
                }
            }
        }
    }
}
