import H264Bitstream
import RTP

/// The sending end of `vtk send`: packetises access units (H.264 or H.265), paces them, sends SRs and BYE, hears PLIs.
final class RTPSender {
    private let socket: UDPSocket
    private let rtcpSocket: UDPSocket
    private let destination: SocketAddress
    private let rtcpDestination: SocketAddress
    /// The access unit's NAL units -> RTP payloads (RFC 6184 or RFC 7798).
    private let packetize: ([[UInt8]]) -> [[UInt8]]
    private var simulator: LossSimulator
    private let command: String
    let payloadType: UInt8 = 96
    let ssrc: UInt32
    private var sequence: UInt16
    private let timestampBase: UInt32
    private(set) var packets = 0
    private(set) var octets = 0
    private(set) var frames = 0
    private(set) var pliReceived = 0
    private var lastSenderReport = -Double.infinity
    /// A PLI arrived since the last call of ``takeKeyFrameRequest()``.
    private var keyFrameRequested = false

    init(url: RTPURL, codec: SessionDescription.Codec, mtu: Int, simulator: LossSimulator, seed: UInt64?, command: String) throws(CommandFailure) {
        self.command = command
        do {
            destination = try SocketAddress.resolve(host: url.host, port: url.port)
            var rtcpAddress = destination
            rtcpAddress.port = url.port + 1
            rtcpDestination = rtcpAddress
            let local = try SocketAddress.resolve(host: destination.isIPv6 ? "::" : "0.0.0.0", port: 0)
            socket = try UDPSocket(binding: local, receiveBufferBytes: 1 << 16)
            rtcpSocket = try UDPSocket(binding: local, receiveBufferBytes: 1 << 16)
        } catch {
            throw CommandFailure(.usage, "vtk \(command): \(error)")
        }
        switch codec {
        case .h264: let packetizer = H264Packetizer(mtu: mtu); packetize = { packetizer.payloads(for: $0) }
        case .h265: let packetizer = H265Packetizer(mtu: mtu); packetize = { packetizer.payloads(for: $0) }
        }
        self.simulator = simulator
        // RFC 3550 5.1: random initial sequence number and timestamp (fixed by --seed, for repeatable tests).
        var generator = SplitMix64(seed: seed ?? UInt64.random(in: 0...UInt64.max))
        ssrc = UInt32.random(in: 1...UInt32.max, using: &generator)
        sequence = UInt16.random(in: 0...UInt16.max, using: &generator)
        timestampBase = UInt32.random(in: 0...UInt32.max, using: &generator)
    }

    var simulatedDrops: Int { simulator.dropped }

    /// Sends one access unit (its NAL units without start codes) with RTP time `ticks` (90 kHz from the start).
    func send(_ nalUnits: [[UInt8]], ticks: Int64, wallClock: Double) throws(CommandFailure) {
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
    func finish() throws(CommandFailure) {
        for datagram in simulator.flush() { try transmit(datagram) }
        pollRTCP()
        try transmit(RTCPPacket.compound([.senderReport(ssrc: ssrc, ntpTime: NTPTime.from(unixSeconds: WallClock.now()), rtpTimestamp: timestampBase,
                                packetCount: UInt32(truncatingIfNeeded: packets), octetCount: UInt32(truncatingIfNeeded: octets), reports: []),
                  .goodbye(ssrcs: [ssrc])]))
    }

    /// True once after each PLI (RFC 4585 6.3.1) addressed to this stream.
    func takeKeyFrameRequest() -> Bool {
        pollRTCP()
        defer { keyFrameRequested = false }
        return keyFrameRequested
    }

    private func transmit(_ datagram: [UInt8]) throws(CommandFailure) {
        do { try socket.send(datagram, to: destination) } catch { throw CommandFailure(.output, "vtk \(command): \(error)") }
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

