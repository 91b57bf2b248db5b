import RTP
import Testing
import VTKTestSupport

@Suite("H.265 RTP payload (RFC 7798)")
struct H265PayloadTests {
    /// NAL units with two-byte headers: VPS, SPS, PPS, SEI, an IDR and trailing pictures of TID 0 and 1,
    /// small ones and ones larger than small MTUs.
    static func nalUnits(seed: UInt64) -> [[UInt8]] {
        var random = SeededRandom(seed: seed)
        let headers: [(UInt8, UInt8)] = [(0x40, 0x01), (0x42, 0x01), (0x44, 0x01), (0x4E, 0x01), (0x26, 0x01),
                                         (0x4E, 0x01), (0x02, 0x01), (0x00, 0x02), (0x02, 0x01), (0x00, 0x02)]
        let sizes = [24, 40, 7, 2, 2000, 3, 700, 64, 5000, 90]
        return zip(headers, sizes).map { header, size in
            [header.0, header.1] + (2..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
    }

    @Test(arguments: [64, 100, 300, 1200, 9000])
    func roundTrip(mtu: Int) {
        let units = Self.nalUnits(seed: UInt64(mtu))
        let payloads = H265Packetizer(mtu: mtu).payloads(for: units)
        #expect(payloads.allSatisfy { $0.count <= mtu - 12 })
        var depacketizer = H265Depacketizer()
        var out: [[UInt8]] = []
        for (index, payload) in payloads.enumerated() {
            let result = depacketizer.push(payload, sequenceNumber: UInt16(index), continuous: true)
            #expect(result.problems.isEmpty, "\(result.problems)")
            out += result.nalUnits
        }
        #expect(out == units)
        let types = Set(payloads.map { $0[0] >> 1 & 0x3F })
        if mtu <= 1200 { #expect(types.contains(49), "FU at MTU \(mtu)") }
        if mtu >= 100 { #expect(types.contains(48), "AP at MTU \(mtu)") }
    }

    @Test func apHeaderTakesLowestTIDAndOrOfF() {
        // 4.4.2: F is the OR, LayerId and TID the lowest; TID 2 and 1 give 1.
        let payloads = H265Packetizer(mtu: 1200).payloads(for: [[0x02, 0x02, 9], [0x80, 0x01, 8]])
        #expect(payloads == [[0x80 | 48 << 1, 0x01, 0, 3, 0x02, 0x02, 9, 0, 3, 0x80, 0x01, 8]])
    }

    @Test func fuHeaders() {
        // 4.4.3: IDR_W_RADL (19) in three FUs: payload header type 49 with the unit's layer and TID; FU header S/E and 19.
        let unit: [UInt8] = [19 << 1, 0x01] + [UInt8](repeating: 7, count: 100)
        let payloads = H265Packetizer(mtu: 12 + 40).payloads(for: [unit])
        #expect(payloads.count == 3)
        #expect(payloads.allSatisfy { $0[0] == 49 << 1 && $0[1] == 0x01 })
        #expect(payloads.map { $0[2] } == [0x80 | 19, 19, 0x40 | 19])
        #expect(payloads.map { $0.count - 3 }.reduce(0, +) == 100, "the unit's 2-byte header is not sent in the fragments")
    }

    @Test func badPayloadsAreReportedNotFatal() {
        var d = H265Depacketizer()
        func problems(_ payload: [UInt8], _ sequence: UInt16, continuous: Bool = true) -> [RTPError] {
            d.push(payload, sequenceNumber: sequence, continuous: continuous).problems
        }
        #expect(problems([], 1).count == 1, "empty")
        #expect("\(problems([0x02], 2))".contains("shorter than its 2-byte header"))
        #expect("\(problems([0x62, 0x01, 0x13, 1, 2], 3))".contains("FU fragment without its start"))
        #expect(problems([0x62, 0x01, 0x93, 1, 2], 4).isEmpty)
        let interrupted = d.push([0x02, 0x01, 9], sequenceNumber: 5, continuous: true)
        #expect(interrupted.problems.count == 1 && "\(interrupted.problems)".contains("has no end"), "start without end")
        #expect(interrupted.nalUnits == [[0x02, 0x01, 9]])
        #expect(problems([0x62, 0x01, 0xD3, 1], 6).count == 1, "start and end together")
        #expect(problems([0x62, 0x01, 0x80 | 48, 1], 7).count == 1, "an FU cannot carry an AP")
        #expect(problems([0x62, 0x01], 8).count == 1, "FU without its FU header")
        let overflow = d.push([0x60, 0x01, 0, 3, 0x40, 0x01, 1, 0, 9, 0x42], sequenceNumber: 9, continuous: true)
        #expect(overflow.nalUnits == [[0x40, 0x01, 1]])
        #expect("\(overflow.problems)".contains("overflows"), "AP length past the end")
        #expect("\(problems([0x60, 0x01, 0, 1, 0x40], 10))".contains("less than a NAL unit header"), "AP unit of 1 byte")
        #expect("\(problems([0x64, 0x01, 1, 2], 11))".contains("PACI"), "PACI is refused")
        #expect(problems([0x7E, 0x01, 1], 12).count == 1, "reserved type 63")
        _ = d.push([0x62, 0x01, 0x93, 1, 2], sequenceNumber: 13, continuous: true)
        let gap = d.push([0x62, 0x01, 0x53, 3], sequenceNumber: 15, continuous: false)
        #expect(gap.nalUnits.isEmpty && "\(gap.problems)".contains("lost its end"), "a gap loses the fragment")
        _ = d.push([0x62, 0x01, 0x93, 1], sequenceNumber: 16, continuous: true)
        #expect(d.finish().count == 1, "stream ended inside a fragment")
    }

    @Test func fragmentsOfAGroupedFrameComeOutAsOneFrame() throws {
        // Through the frame receiver: a 3000-byte IDR and a VPS in one access unit, at MTU 400.
        let units: [[UInt8]] = [[0x40, 0x01, 1, 2, 3], [0x26, 0x01] + [UInt8](repeating: 5, count: 2998)]
        let payloads = H265Packetizer(mtu: 400).payloads(for: units)
        var buffer = JitterBuffer(latency: 0)
        for (index, payload) in payloads.enumerated() {
            buffer.insert(RTPPacket(marker: index == payloads.count - 1, payloadType: 96, sequenceNumber: UInt16(index), timestamp: 3000, ssrc: 1,
                                    payload: payload), arrival: 0)
        }
        var receiver = H265AccessUnitReceiver()
        let frames = buffer.flush().flatMap { receiver.push($0) }
        let frame = try #require(frames.first)
        #expect(frames.count == 1 && frame.complete && !frame.damaged)
        #expect(frame.nalUnits == units)
    }
}

@Suite("SDP for H.265 (RFC 7798 7.1, 7.2)")
struct H265SessionDescriptionTests {
    static let vps: [UInt8] = [0x40, 0x01, 0x0C, 0x01], sps: [UInt8] = [0x42, 0x01, 0x01, 0x01, 0x60], pps: [UInt8] = [0x44, 0x01, 0xC1, 0x71]

    @Test func writesAndReadsBack() throws {
        let sdp = SessionDescription(address: "127.0.0.1", port: 5004, codec: .h265, parameterSets: [Self.vps, Self.sps, Self.pps])
        #expect(sdp.text.contains("a=rtpmap:96 H265/90000"))
        #expect(sdp.text.contains("a=fmtp:96 sprop-vps=QAEMAQ==; sprop-sps=QgEBAWA=; sprop-pps=RAHBcQ=="))
        #expect(!sdp.text.contains("packetization-mode") && !sdp.text.contains("profile-level-id"))
        #expect(try SessionDescription.parse(sdp.text) == sdp)
    }

    @Test func readsFFmpegSDP() throws {
        // What `ffmpeg -c copy -f rtp -sdp_file` wrote for x265_cif_ippp_ctu64.265 (FFmpeg 5.1).
        let text = "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=No Name\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\na=tool:libavformat LIBAVFORMAT_VERSION\r\n"
            + "m=video 45999 RTP/AVP 96\r\na=rtpmap:96 H265/90000\r\n"
            + "a=fmtp:96 sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwA8koCQ; sprop-sps=QgEBAWAAAAMAkAAAAwAAAwA8oAsIBIWWSpJMrmgIAAADAAgAAAMAyEA=; sprop-pps=RAHBcaMS\r\n"
        let sdp = try SessionDescription.parse(text)
        #expect(sdp.codec == .h265 && sdp.port == 45999 && sdp.payloadType == 96)
        #expect(sdp.parameterSets.map { $0[0] >> 1 } == [32, 33, 34])
    }

    @Test(arguments: [
        "v=0\nm=video 5000 RTP/AVP 96\na=rtpmap:96 H265/90000\na=fmtp:96 sprop-max-don-diff=2\n",
        "v=0\nm=video 5000 RTP/AVP 96\na=rtpmap:96 H265/90000\na=fmtp:96 sprop-vps=QgEBAWA=\n",
        "v=0\nm=video 5000 RTP/AVP 96\na=rtpmap:96 H265/48000\n",
        "v=0\nm=video 5000 RTP/AVP 96\na=rtpmap:96 VP8/90000\n",
    ])
    func unusableSDPIsRefused(text: String) {
        #expect(throws: RTPError.self) { try SessionDescription.parse(text) }
    }
}
