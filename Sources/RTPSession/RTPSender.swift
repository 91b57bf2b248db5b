import DecompressionSession
import NALStream
import RTP

/// The sending end of an RTP session: packetises access units by the codec's payload format (RFC 6184,
/// RFC 7798), paces them by their times, sends SRs and the closing BYE, and hears PLIs.
public final class RTPSender {
    private let socket: UDPSocket
    private let rtcpSocket: UDPSocket
    private let destination: SocketAddress
    private let rtcpDestination: SocketAddress
    /// The access unit's NAL units -> RTP payloads.
    private let packetize: ([[UInt8]]) -> [[UInt8]]
    private var simulator: LossSimulator
    /// Pace packets by their times; false sends as fast as possible.
    public let paced: Bool
    public let payloadType: UInt8 = 96
    public let ssrc: UInt32
    private var sequence: UInt16
    private let timestampBase: UInt32
    public private(set) var packets = 0
    public private(set) var octets = 0
    public private(set) var frames = 0
    public private(set) var pliReceived = 0
    private var lastSenderReport = -Double.infinity
    /// A PLI arrived since the last call of ``takeKeyFrameRequest()``.
    private var keyFrameRequested = false
    /// Wall-clock time of the first access unit's RTP time (see ``startClock()``).
    public private(set) var clockStart = WallClock.now()
    private var firstTicks: Int64?

    /// Sends to `url` (RTCP to its port + 1). `seed` fixes the random SSRC, sequence number and timestamp
    /// (RFC 3550 5.1), for repeatable tests.
    public init(url: RTPURL, codec: VideoCodec, mtu: Int, simulator: LossSimulator, seed: UInt64?, paced: Bool = true) throws(RTPSessionError) {
        do {
            destination = try SocketAddress.resolve(host: url.host, port: url.port)
            var rtcpAddress = destination
            rtcpAddress.port = url.port + 1
            rtcpDestination = rtcpAddress
            let local = try SocketAddress.resolve(host: destination.isIPv6 ? "::" : "0.0.0.0", port: 0)
            socket = try UDPSocket(binding: local, receiveBufferBytes: 1 << 16)
            rtcpSocket = try UDPSocket(binding: local, receiveBufferBytes: 1 << 16)
        } catch {
            throw RTPSessionError(.usage, "\(error)")
        }
        let binding: any RTPCodec.Type = RTPCodecs.binding(for: codec) ?? H264Codec.self
        packetize = Self.packetizer(binding, mtu: mtu)
        self.simulator = simulator
        self.paced = paced
        var generator = SplitMix64(seed: seed ?? UInt64.random(in: 0...UInt64.max))
        ssrc = UInt32.random(in: 1...UInt32.max, using: &generator)
        sequence = UInt16.random(in: 0...UInt16.max, using: &generator)
        timestampBase = UInt32.random(in: 0...UInt32.max, using: &generator)
    }

    private static func packetizer<Codec: RTPCodec>(_ codec: Codec.Type, mtu: Int) -> ([[UInt8]]) -> [[UInt8]] {
        let packetizer = NALUnitPacketizer<Codec.PayloadFormat>(mtu: mtu)
        return { packetizer.payloads(for: $0) }
    }

    public var simulatedDrops: Int { simulator.dropped }

    /// The capture clock starts now (a live source's first frame), not when the sender was made.
    public func startClock() { clockStart = WallClock.now() }

    /// Waits until `seconds` after the clock's start (a live source's capture time of a frame).
    public func wait(untilSecondsFromStart seconds: Double) { WallClock.sleep(until: clockStart + seconds) }

    /// Sends one access unit with RTP time `ticks` (90 kHz) when its decoding time `due` (default `ticks`)
    /// comes, both counted from the first access unit's RTP time; at once when not in real time.
    public func send(_ nalUnits: [[UInt8]], ticks: Int64, due: Int64? = nil) throws(RTPSessionError) {
        let base = firstTicks ?? ticks
        firstTicks = base
        if paced { WallClock.sleep(until: clockStart + Double((due ?? ticks) - base) / 90000) }
        try send(nalUnits, ticks: ticks - base, wallClock: paced ? clockStart + Double(ticks - base) / 90000 : WallClock.now())
    }

    /// Sends one access unit (its NAL units without start codes) with RTP time `ticks` (90 kHz from the
    /// start), captured at `wallClock`.
    private func send(_ nalUnits: [[UInt8]], ticks: Int64, wallClock: Double) throws(RTPSessionError) {
        pollRTCP()
        let timestamp = timestampBase &+ UInt32(truncatingIfNeeded: ticks)
        let now = WallClock.now()
        if now - lastSenderReport >= 1 || frames == 0 {
            // The SR maps this frame's timestamp to the wall clock at which it was due (6.4.1).
            sendRTCP([.senderReport(ssrc: ssrc, ntpTime: NTPTime.from(unixSeconds: wallClock), rtpTimestamp: timestamp,
                                    packetCount: UInt32(truncatingIfNeeded: packets), octetCount: UInt32(truncatingIfNeeded: octets), reports: []),
                      .sourceDescription(ssrc: ssrc, cname: "vtk-send")])
            lastSenderReport = now
        }
        let payloads = packetize(nalUnits)
        for (index, payload) in payloads.enumerated() {
            let packet = RTPPacket(marker: index == payloads.count - 1, payloadType: payloadType, sequenceNumber: sequence,
                                   timestamp: timestamp, ssrc: ssrc, payload: payload)
            sequence &+= 1
            packets += 1
            octets += payload.count
            for datagram in simulator.process(packet.serialized(), sequence: packet.sequenceNumber) { try transmit(datagram) }
        }
        frames += 1
    }

    /// Sends what the reorder simulation held back, then SR and BYE (6.6). The BYE goes to the RTP port, in
    /// order after the last media packet (RTCP there is told apart by its packet type, RFC 5761 4): on the
    /// RTCP port it could overtake packets still queued, and FFmpeg ends its input at a BYE.
    public func finish() throws(RTPSessionError) {
        for datagram in simulator.flush() { try transmit(datagram) }
        pollRTCP()
        try transmit(RTCPPacket.compound([.senderReport(ssrc: ssrc, ntpTime: NTPTime.from(unixSeconds: WallClock.now()), rtpTimestamp: timestampBase,
                                packetCount: UInt32(truncatingIfNeeded: packets), octetCount: UInt32(truncatingIfNeeded: octets), reports: []),
                  .goodbye(ssrcs: [ssrc])]))
    }

    /// True once after each PLI (RFC 4585 6.3.1) addressed to this stream.
    public func takeKeyFrameRequest() -> Bool {
        pollRTCP()
        defer { keyFrameRequested = false }
        return keyFrameRequested
    }

    private func transmit(_ datagram: [UInt8]) throws(RTPSessionError) {
        do { try socket.send(datagram, to: destination) } catch { throw RTPSessionError(.output, "\(error)") }
    }

    private func sendRTCP(_ packets: [RTCPPacket]) {
        try? rtcpSocket.send(RTCPPacket.compound(packets), to: rtcpDestination)
    }

    private func pollRTCP() {
        for socket in [rtcpSocket, self.socket] {
            while let datagram = try? socket.receiveNow() {
                guard let packets = try? RTCPPacket.parseCompound(datagram.bytes) else { continue }
                for case let .pictureLossIndication(_, media) in packets where media == ssrc || media == 0 {
                    pliReceived += 1
                    keyFrameRequested = true
                }
            }
        }
    }
}
