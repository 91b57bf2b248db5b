import RTP
import Testing
import VTKTestSupport

@Suite("RTP and RTCP packets")
struct RTPPacketTests {
    @Test func roundTrip() throws {
        let packet = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 65535, timestamp: 0xDEADBEEF, ssrc: 0x12345678,
                               csrcs: [1, 2], payload: [1, 2, 3, 4, 5])
        let bytes = packet.serialized()
        #expect(bytes.count == 12 + 8 + 5)
        #expect(bytes[0] == 0x82 && bytes[1] == 0xE0)
        #expect(try RTPPacket(parsing: bytes) == packet)
    }

    @Test func extensionAndPaddingAreRemoved() throws {
        // V=2 P=1 X=1, extension of one word, 3 payload bytes then 2 bytes of padding.
        let bytes: [UInt8] = [0xB0, 96, 0, 1, 0, 0, 0, 9, 0, 0, 0, 7, 0xBE, 0xDE, 0, 1, 9, 9, 9, 9, 0x41, 0x42, 0x43, 0, 2]
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.payload == [0x41, 0x42, 0x43])
        #expect(packet.timestamp == 9 && packet.ssrc == 7)
    }

    @Test(arguments: [
        ([UInt8](repeating: 0x80, count: 11), "too short"),
        ([0x40, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1], "version 1"),
        ([0xA0, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 9], "padding 9"),
        ([0xA0, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0], "padding 0"),
        ([0x83, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2], "CSRCs past the end"),
        ([0x90, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xBE, 0xDE, 0, 5], "extension past the end"),
    ])
    func badPacketsAreRefused(bytes: [UInt8], what: String) {
        #expect(throws: RTPError.self, "\(what)") { try RTPPacket(parsing: bytes) }
    }

    @Test func rtcpCompoundRoundTrip() throws {
        let block = ReportBlock(ssrc: 0xAABBCCDD, fractionLost: 12, cumulativeLost: -3, extendedHighestSequence: 0x1_0005, jitter: 321,
                                lastSenderReport: 0x11223344, delaySinceLastSenderReport: 65536)
        let packets: [RTCPPacket] = [
            .senderReport(ssrc: 1, ntpTime: 0x0102_0304_0506_0708, rtpTimestamp: 99, packetCount: 10, octetCount: 1000, reports: [block]),
            .receiverReport(ssrc: 2, reports: [block, block]),
            .sourceDescription(ssrc: 2, cname: "vtk@host"),
            .pictureLossIndication(senderSSRC: 2, mediaSSRC: 1),
            .goodbye(ssrcs: [1]),
        ]
        let bytes = RTCPPacket.compound(packets)
        #expect(bytes.count % 4 == 0)
        #expect(try RTCPPacket.parseCompound(bytes) == packets)
        // RFC 4585 6.1: PLI is PT 206 (PSFB) with FMT 1 and length 2.
        let pli = RTCPPacket.pictureLossIndication(senderSSRC: 2, mediaSSRC: 1).serialized()
        #expect(Array(pli.prefix(4)) == [0x81, 206, 0, 2])
    }

    @Test func badRTCPIsRefused() {
        let rr = RTCPPacket.receiverReport(ssrc: 2, reports: [ReportBlock(ssrc: 1, fractionLost: 0, cumulativeLost: 0, extendedHighestSequence: 0, jitter: 0)]).serialized()
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(Array(rr.dropLast(4))) }  // length says more than there is
        var wrongCount = rr
        wrongCount[0] = 0x82  // two report blocks declared, one present
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(wrongCount) }
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound([0x80, 201]) }
    }

    @Test func ntpTime() {
        let unix = 1_700_000_000.25
        let ntp = NTPTime.from(unixSeconds: unix)
        #expect(abs(NTPTime.unixSeconds(ntp) - unix) < 1e-6)
        #expect(ntp >> 32 == UInt64(1_700_000_000 + 2_208_988_800))
    }
}

@Suite("H.264 RTP payload (RFC 6184)")
struct H264PayloadTests {
    /// NAL units of assorted sizes: small parameter sets and SEI, slices larger than small MTUs.
    static func nalUnits(seed: UInt64) -> [[UInt8]] {
        var random = SeededRandom(seed: seed)
        let sizes = [12, 4, 30, 1, 2000, 3, 700, 64, 5000, 90]
        return sizes.enumerated().map { index, size in
            let header = UInt8([0x67, 0x68, 0x06, 0x09, 0x65, 0x06, 0x41, 0x01, 0x65, 0x41][index])
            return [header] + (1..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
    }

    @Test(arguments: [64, 100, 300, 1200, 9000])
    func roundTrip(mtu: Int) {
        let units = Self.nalUnits(seed: UInt64(mtu))
        let payloads = H264Packetizer(mtu: mtu).payloads(for: units)
        #expect(payloads.allSatisfy { $0.count <= mtu - 12 })
        var depacketizer = H264Depacketizer()
        var out: [[UInt8]] = []
        for (index, payload) in payloads.enumerated() {
            let result = depacketizer.push(payload, sequenceNumber: UInt16(index), continuous: true)
            #expect(result.problems.isEmpty)
            out += result.nalUnits
        }
        #expect(out == units)
        let types = Set(payloads.map { $0[0] & 0x1F })
        if mtu <= 1200 { #expect(types.contains(28), "FU-A at MTU \(mtu)") }
        if mtu >= 100 { #expect(types.contains(24), "STAP-A at MTU \(mtu)") }
    }

    @Test func stapAKeepsHighestNRI() {
        let payloads = H264Packetizer(mtu: 1200).payloads(for: [[0x67, 1, 2], [0x08, 3]])
        #expect(payloads == [[0x60 | 24, 0, 3, 0x67, 1, 2, 0, 2, 0x08, 3]])
    }

    @Test func fuAHeaders() {
        let unit: [UInt8] = [0x65] + [UInt8](repeating: 7, count: 100)
        let payloads = H264Packetizer(mtu: 12 + 40).payloads(for: [unit])
        #expect(payloads.count == 3)
        #expect(payloads.map { $0[0] } == [0x7C, 0x7C, 0x7C])  // NRI 3, type 28
        #expect(payloads.map { $0[1] } == [0x85, 0x05, 0x45])  // S, -, E with type 5
    }

    @Test func badPayloadsAreReportedNotFatal() {
        var d = H264Depacketizer()
        #expect(!d.push([], sequenceNumber: 1, continuous: true).problems.isEmpty)
        #expect(!d.push([0x7C, 0x05, 1, 2], sequenceNumber: 2, continuous: true).problems.isEmpty, "FU-A without start")
        #expect(d.push([0x7C, 0x85, 1, 2], sequenceNumber: 3, continuous: true).problems.isEmpty)
        let interrupted = d.push([0x41, 9], sequenceNumber: 4, continuous: true)
        #expect(interrupted.problems.count == 1, "start without end")
        #expect(interrupted.nalUnits == [[0x41, 9]])
        #expect(!d.push([0x7C, 0xC5, 1], sequenceNumber: 5, continuous: true).problems.isEmpty, "start and end together")
        let overflow = d.push([0x18, 0, 2, 0x67, 1, 0, 9, 0x68], sequenceNumber: 6, continuous: true)
        #expect(overflow.nalUnits == [[0x67, 1]])
        #expect(overflow.problems.count == 1, "STAP-A length past the end")
        #expect(!d.push([0x19, 0, 0], sequenceNumber: 7, continuous: true).problems.isEmpty, "STAP-B is not mode 1")
        #expect(!d.push([0x00], sequenceNumber: 8, continuous: true).problems.isEmpty, "NAL type 0")
        _ = d.push([0x7C, 0x85, 1, 2], sequenceNumber: 9, continuous: true)
        let gap = d.push([0x7C, 0x45, 3], sequenceNumber: 11, continuous: false)
        #expect(gap.nalUnits.isEmpty && !gap.problems.isEmpty, "a gap loses the fragment")
        _ = d.push([0x7C, 0x85, 1], sequenceNumber: 12, continuous: true)
        #expect(d.finish().count == 1, "stream ended inside a fragment")
    }
}

@Suite("Jitter buffer, loss simulation, reception statistics")
struct JitterBufferTests {
    static func packet(_ sequence: UInt16) -> RTPPacket {
        RTPPacket(payloadType: 96, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000, ssrc: 1, payload: [0x41])
    }

    @Test func reordersAndCountsLossAndLateness() {
        var buffer = JitterBuffer(latency: 0.1)
        // Times are given, not measured: 65534, 65535 (wrap), 1, 0, then 3 with 2 missing.
        for (sequence, time) in [(65534, 0.0), (65535, 0.01), (1, 0.02), (0, 0.03), (3, 0.04)] as [(UInt16, Double)] {
            buffer.insert(Self.packet(sequence), arrival: time)
        }
        var order = buffer.pop(now: 0.05).map { $0.packet.sequenceNumber }
        #expect(order == [], "nothing before the first packet waited out the latency")
        order = buffer.pop(now: 0.1).map { $0.packet.sequenceNumber }
        #expect(order == [65534, 65535, 0, 1])
        let rest = buffer.pop(now: 0.2)
        #expect(rest.map { $0.packet.sequenceNumber } == [3])
        #expect(rest.first?.lostBefore == 1)
        buffer.insert(Self.packet(2), arrival: 0.3)
        #expect(buffer.late == 1 && buffer.lost == 1 && buffer.reordered == 1)
        buffer.insert(Self.packet(4), arrival: 0.3)
        buffer.insert(Self.packet(4), arrival: 0.3)
        #expect(buffer.duplicates == 1)
        #expect(buffer.flush().count == 1)
    }

    @Test func lossSimulationIsDeterministic() {
        func run(first: UInt16) -> (dropped: [UInt16], swapped: Int) {
            var simulator = LossSimulator(lossPercent: 10, reorderPercent: 5, seed: 1)
            var out: [UInt16] = []
            for i in 0..<2000 {
                let sequence = first &+ UInt16(i)
                for d in simulator.process([0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF)], sequence: sequence) {
                    out.append(UInt16(d[2]) << 8 | UInt16(d[3]))
                }
            }
            for d in simulator.flush() { out.append(UInt16(d[2]) << 8 | UInt16(d[3])) }
            #expect(out.count + simulator.dropped == 2000)
            return (simulator.droppedSequenceNumbers.map { $0 &- first }, simulator.swapped)
        }
        let a = run(first: 100), b = run(first: 60000)
        #expect(a.dropped == b.dropped, "the pattern follows the sequence number counted from the first packet")
        #expect(a.swapped == b.swapped && a.swapped > 0)
        #expect((150...250).contains(a.dropped.count))
    }

    @Test func receptionReport() {
        var stats = ReceptionStatistics(clockRate: 90000)
        for sequence in [10, 11, 13, 14] as [Int64] { stats.record(sequence: sequence, timestamp: UInt32(sequence * 3000), arrival: Double(sequence) / 30) }
        let block = stats.reportBlock(ssrc: 5, now: 1)
        #expect(block.cumulativeLost == 1)
        #expect(block.fractionLost == UInt8(256 / 5))
        #expect(block.extendedHighestSequence == 14)
        #expect(block.jitter < 2, "packets on their schedule have no jitter")
    }
}

@Suite("SDP for H.264 (RFC 6184 8.2)")
struct SessionDescriptionTests {
    @Test func writesAndReadsBack() throws {
        let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8]
        let pps: [UInt8] = [0x68, 0xC9, 0x23, 0x88]
        let sdp = SessionDescription(address: "127.0.0.1", port: 5004, parameterSets: [sps, pps])
        #expect(sdp.profileLevelId == "42E00A")
        #expect(sdp.text.contains("sprop-parameter-sets=Z0LgCpZShYnI,aMkjiA=="))
        let parsed = try SessionDescription.parse(sdp.text)
        #expect(parsed == sdp)
    }

    @Test func readsFFmpegSDP() throws {
        let text = "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=No Name\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\na=tool:libavformat\r\nm=video 37030 RTP/AVP 96\r\n"
            + "a=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1; sprop-parameter-sets=Z0LgCpZShYnI,aMkjiAA=; profile-level-id=42E00A\r\n"
        let sdp = try SessionDescription.parse(text)
        #expect(sdp.port == 37030 && sdp.payloadType == 96 && sdp.packetizationMode == 1)
        #expect(sdp.parameterSets.map { $0.count } == [9, 5])
    }

    @Test(arguments: [
        "hello",
        "v=0\nc=IN IP4 1.2.3.4\n",
        "v=0\nm=audio 5000 RTP/AVP 0\n",
        "v=0\nm=video 5000 RTP/AVP 96\na=rtpmap:96 VP8/90000\n",
        "v=0\nm=video 70000 RTP/AVP 96\na=rtpmap:96 H264/90000\n",
        "v=0\nm=video 5000 RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=2\n",
        "v=0\nm=video 5000 RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 sprop-parameter-sets=!!!\n",
    ])
    func unusableSDPIsRefused(text: String) {
        #expect(throws: RTPError.self) { try SessionDescription.parse(text) }
    }

    @Test func base64() {
        for n in 0..<10 {
            let bytes = (0..<n).map { UInt8($0 * 37 & 0xFF) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }
}

@Suite("UDP sockets on loopback")
struct UDPSocketTests {
    @Test func sendAndReceiveAndPortInUse() throws {
        for host in ["127.0.0.1", "::1"] {
            let receiver = try UDPSocket(binding: SocketAddress.resolve(host: host, port: 0))
            #expect(receiver.localPort > 0)
            let sender = try UDPSocket(binding: SocketAddress.resolve(host: host, port: 0))
            try sender.send([1, 2, 3], to: SocketAddress.resolve(host: host, port: receiver.localPort))
            let got = try receiver.receive(timeout: 30)
            #expect(got?.bytes == [1, 2, 3])
            #expect(throws: RTPError.self) { try UDPSocket(binding: SocketAddress.resolve(host: host, port: receiver.localPort)) }
        }
    }

    @Test func urls() throws {
        #expect(try RTPURL("rtp://127.0.0.1:5004") == RTPURL("rtp://127.0.0.1:5004/"))
        #expect(try RTPURL("rtp://[::1]:6000").host == "::1")
        #expect(try RTPURL("rtp://@:0").port == 0)
        for bad in ["udp://x:1", "rtp://host", "rtp://host:99999", "rtp://[::1]6000"] {
            #expect(throws: RTPError.self) { try RTPURL(bad) }
        }
    }
}
