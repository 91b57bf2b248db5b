import DecompressionSession
import NALStream
import VTKMedia

/// An Annex B stream read in chunks, cut into access units in decoding order, each picture with its display
/// position, found by the codec's decoding process without VA (POC order and DPB output: H.264 8.2.1 and
/// C.4; H.265 8.3.1 and C.5.2). A unit is released once its position is known, so the stream is never held
/// whole: a picture is known when the process outputs it, when it skips it (a RASL picture of a starting
/// CRA, which has none), or when ``lookahead`` later pictures went by without it (the second field of a
/// frame: the DPB holds at most 16 frames, A.3.1, so nothing older is output after that).
public struct AnnexBSendQueue<Codec: RTPCodec> {
    /// An access unit ready to send.
    public struct Unit {
        public var nalUnits: [[UInt8]]
        public var hasPicture: Bool
        /// For a picture: its position in display order; nil when the process never outputs it.
        public var displayPosition: Int?
    }

    public static var lookahead: Int { 64 }
    private var reader = AnnexBStreamReader()
    private var assembler = Codec.Assembler()
    private var process = Codec.Process()
    /// Units not yet released, in decoding order, pictures with their decoding position.
    private var held: [(unit: Unit, picture: Int?)] = []
    private var positions: [Int: Int] = [:]
    private var outputs = 0
    private var pictures = 0
    /// Pictures the process decoded and has not output (the rest are resolved).
    private var pending: Set<Int> = []
    /// The parameter sets of the first picture (SPS and PPS; VPS, SPS and PPS), once it came.
    public private(set) var parameterSets: [[UInt8]] = []
    /// The first picture's VUI frame rate.
    public private(set) var frameRate: Double?
    /// A picture came: units are released from now on.
    public private(set) var sawPicture = false

    public init() {}

    /// Adds a chunk of the stream; returns the units it made ready, in decoding order.
    public mutating func append(_ chunk: [UInt8]) -> [Unit] {
        for nal in reader.append(chunk) { if let unit = assembler.push(nal) { add(unit) } }
        return release()
    }

    /// Ends the stream: every unit still held.
    public mutating func finish() -> [Unit] {
        for nal in reader.finish() { if let unit = assembler.push(nal) { add(unit) } }
        for unit in assembler.finish() { add(unit) }
        note(process.flush())
        pending = []
        return release()
    }

    private mutating func add(_ unit: Codec.Assembler.AccessUnit) {
        let sendable = Unit(nalUnits: unit.nalUnits.map { Array($0.bytes) }, hasPicture: unit.hasPicture)
        guard unit.hasPicture else { held.append((sendable, nil)); return }
        if !sawPicture {
            sawPicture = true
            if let format = Codec.parameterSetFormat(of: unit) {
                parameterSets = Codec.parameterSets(of: format).map { Array($0.bytes) }
                frameRate = format.frameRate.map { Double($0.numerator) / Double($0.denominator) }
            }
        }
        let index = pictures
        pictures += 1
        held.append((sendable, index))
        // Picture i goes into the process with time i; the times come out in display order.
        let events = process.decode(unit, presentationTime: MediaTime(value: Int64(index), timescale: 1))
        if events.contains(where: { if case .decode = $0 { true } else { false } }) { pending.insert(index) }
        note(events)
        pending = pending.filter { $0 > index - Self.lookahead }
    }

    private mutating func note(_ events: [Codec.Process.Event]) {
        for case .output(let picture) in events where picture.presentationTime.isNumeric {
            let index = Int(picture.presentationTime.value)
            positions[index] = outputs
            outputs += 1
            pending.remove(index)
        }
    }

    private mutating func release() -> [Unit] {
        guard sawPicture else { return [] }
        var ready: [Unit] = []
        while let first = held.first {
            if let index = first.picture {
                guard !pending.contains(index) else { break }
                var unit = first.unit
                unit.displayPosition = positions.removeValue(forKey: index)
                ready.append(unit)
            } else {
                ready.append(first.unit)
            }
            held.removeFirst()
        }
        return ready
    }
}
