import DecompressionSession
import NALStream
import RTP

/// A receiver's assembly: datagrams -> (loss simulation) -> checked packets of one source -> jitter buffer ->
/// access units by RTP timestamp -> the codec's access units, flagged where packets were lost, with what a lost
/// picture asks of the sender. No sockets and no clock: the caller gives the arrival times.
public struct RTPStreamAssembler<Codec: RTPCodec> {
    public typealias Unit = Codec.Assembler.AccessUnit

    /// What became of one datagram.
    public enum Intake: Equatable, Sendable {
        /// Accepted into the jitter buffer: its extended sequence number, timestamp and size (for statistics).
        case accepted(sequence: Int64, timestamp: UInt32, size: Int)
        /// Refused: not RTP, or the wrong payload type.
        case problem(RTPError)
        /// A packet of another SSRC than the one locked on.
        case otherSource
    }

    /// An access unit ready for the decoder, with what its loss asks for.
    public struct Assembled {
        public var unit: Unit
        /// Why it is damaged (it is flagged so); nil when intact.
        public var damage: String?
        /// It is a keyframe that came damaged: the keyframe asked for must be asked for again.
        public var keyframeDamaged = false
        /// A reference picture was hit: ask the sender for a keyframe.
        public var asksKeyframe = false

        public init(unit: Unit, damage: String? = nil, keyframeDamaged: Bool = false, asksKeyframe: Bool = false) {
            self.unit = unit
            self.damage = damage
            self.keyframeDamaged = keyframeDamaged
            self.asksKeyframe = asksKeyframe
        }
    }

    private var simulator: LossSimulator
    private var jitter: JitterBuffer
    private var receiver = AccessUnitReceiver<Codec.PayloadFormat>()
    private var assembler = Codec.Assembler()
    public private(set) var payloadType: UInt8?
    /// The source locked on: the SSRC of the first packet accepted.
    public private(set) var senderSSRC: UInt32?
    /// The codec the payloads look like when it is not this one (an H.265 sender to an H.264 receiver).
    public private(set) var wrongCodec: String?
    /// Bytes of NAL units fed so far, each counted with a 4-byte start code (the decoder's offsets).
    public private(set) var byteOffset = 0

    /// `payloadType`: the SDP's; nil takes the first dynamic one (96-127) seen.
    public init(payloadType: UInt8?, latency: Double, simulator: LossSimulator = LossSimulator(lossPercent: 0)) {
        self.payloadType = payloadType
        self.simulator = simulator
        jitter = JitterBuffer(latency: latency)
    }

    /// Takes one RTP datagram arrived at `now` (through the loss simulation).
    public mutating func take(_ bytes: [UInt8], at now: Double) -> [Intake] {
        guard bytes.count >= 4 else { return [.problem(RTPError.truncated(what: "RTP packet", length: bytes.count, needed: 12))] }
        let sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        return simulator.process(bytes, sequence: sequence).map { insert($0, at: now) }
    }

    /// What the loss simulation still holds (the end of the stream).
    public mutating func flushSimulator(at now: Double) -> [Intake] { simulator.flush().map { insert($0, at: now) } }

    private mutating func insert(_ bytes: [UInt8], at now: Double) -> Intake {
        let packet: RTPPacket
        do { packet = try RTPPacket(parsing: bytes) } catch { return .problem(error) }
        if payloadType == nil, packet.payloadType >= 96 { payloadType = packet.payloadType }
        guard packet.payloadType == payloadType else {
            return .problem(RTPError.wrongPayloadType(got: Int(packet.payloadType), expected: Int(payloadType ?? 96)))
        }
        if senderSSRC == nil { senderSSRC = packet.ssrc }
        guard packet.ssrc == senderSSRC else { return .otherSource }
        if wrongCodec == nil, let other = Codec.PayloadFormat.otherCodec(packet.payload) { wrongCodec = other }
        let sequence = jitter.extend(packet.sequenceNumber)
        jitter.insert(packet, arrival: now)
        return .accepted(sequence: sequence, timestamp: packet.timestamp, size: bytes.count)
    }

    /// When the jitter buffer next releases a packet by itself.
    public var nextDeadline: Double? { jitter.nextDeadline }

    /// The packets due at `now`, in order, each with the count lost before it.
    public mutating func release(now: Double) -> [JitterBuffer.Released] { jitter.pop(now: now) }

    /// Every packet still held (the end of the stream).
    public mutating func releaseAll() -> [JitterBuffer.Released] { jitter.flush() }

    /// The jitter buffer's counts: lost, late, reordered, duplicates; and the simulation's drops.
    public var counts: (lost: Int, late: Int, reordered: Int, duplicates: Int, simulatedDrops: Int) {
        (jitter.lost, jitter.late, jitter.reordered, jitter.duplicates, simulator.dropped)
    }

    /// True when packets were lost just before `released` and it may carry data later pictures refer to: a
    /// keyframe is asked for at once, without waiting for the damaged picture to end (RFC 6184 5.3 NRI 0;
    /// RFC 7798 1.1.4, sub-layer non-reference types).
    public static func gapAsksKeyframe(_ released: JitterBuffer.Released) -> Bool {
        released.lostBefore > 0 && Codec.PayloadFormat.mayCarryReference(released.packet.payload)
    }

    /// Adds one released packet; returns the RTP access units it completed.
    public mutating func push(_ released: JitterBuffer.Released) -> [RTPAccessUnit] { receiver.push(released) }

    /// The RTP access unit still open at the end of the stream.
    public mutating func finishReceiving() -> [RTPAccessUnit] { receiver.finish() }

    /// NAL units (of an RTP access unit at RTP time `presentation`, or of an SDP) -> the codec's access units.
    /// An RTP access unit ends the codec's access units still open; `damage` flags its pictures, and
    /// `lossBefore` says packets were lost before it.
    public mutating func accessUnits(_ nalUnits: [[UInt8]], damage: String?, lossBefore: Bool = false, presentation: Int64?) -> [Assembled] {
        var out: [Assembled] = []
        for bytes in nalUnits where !bytes.isEmpty {
            if let unit = assembler.push(NALUnit(bytes, offset: byteOffset)) { out.append(Assembled(unit: unit, damage: damage)) }
            byteOffset += bytes.count + 4
        }
        guard presentation != nil else { return out }
        for var unit in assembler.finish() {
            // Packets lost before a picture whose first slice starts at macroblock 0 were other pictures
            // (the decoder sees those as frame_num gaps) or non-VCL units; otherwise the picture lost its start.
            var reason = damage
            var assembled = Assembled(unit: unit, damage: nil)
            if lossBefore, reason == nil, !unit.startsAtFirstSlice { reason = "RTP packets lost before this picture took its first slices" }
            // Packets lost between pictures may have been a whole reference picture: the decoder would only
            // tell at output, frames later, so the keyframe is asked for now.
            if lossBefore, reason == nil, unit.hasPicture { assembled.asksKeyframe = true }
            if let reason, unit.hasPicture {
                unit.flagDamage(reason)
                assembled.keyframeDamaged = unit.isKeyframe
                assembled.asksKeyframe = unit.isReference || unit.isKeyframe
            }
            assembled.unit = unit
            assembled.damage = reason
            out.append(assembled)
        }
        return out
    }

    /// The access units still open at the end of the stream.
    public mutating func finishAccessUnits() -> [Unit] { assembler.finish() }
}
