// libFuzzer target: RTP and RTCP parsing, the jitter buffer, the H.264 (RFC 6184) and H.265 (RFC 7798)
// depacketisers and frame grouping, and SDP parsing. Built by Tools/Fuzz/build.sh; the input is a list of
// datagrams, each preceded by its 16-bit big-endian length (Tools/Fuzz/make_corpus.py writes seeds from the
// conformance streams of both codecs).
import RTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? SessionDescription.parse(String(decoding: bytes, as: UTF8.self))

    var datagrams: [[UInt8]] = []
    var offset = 0
    while offset + 2 <= bytes.count {
        let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        let end = min(bytes.count, offset + 2 + length)
        datagrams.append(Array(bytes[(offset + 2)..<end]))
        offset = end
    }

    var packets: [RTPPacket] = []
    for datagram in datagrams {
        if let parsed = try? RTCPPacket.parseCompound(datagram) {
            // What parses must serialise and parse back to the same packets (padding aside).
            if let again = try? RTCPPacket.parseCompound(RTCPPacket.compound(parsed)) {
                precondition(again.count == parsed.count, "RTCP round trip changed the packet count")
            }
        }
        guard let packet = try? RTPPacket(parsing: datagram) else { continue }
        precondition((try? RTPPacket(parsing: packet.serialized())) == packet, "RTP round trip differs")
        packets.append(packet)
    }
    // The same packets as H.264 and as H.265, at a small MTU chosen by the input.
    let mtu = 16 + Int(bytes.first ?? 0) * 4
    depacketize(H264PayloadFormat.self, packets, mtu: mtu)
    depacketize(H265PayloadFormat.self, packets, mtu: mtu)
    return 0
}

/// Depacketises `packets` directly and through the jitter buffer and frame grouping; the NAL units that come
/// out must survive packetising and depacketising again.
func depacketize<Format: NALPayloadFormat>(_ format: Format.Type, _ packets: [RTPPacket], mtu: Int) {
    var buffer = JitterBuffer(latency: 0.01, capacity: 64)
    var receiver = AccessUnitReceiver<Format>()
    var depacketizer = NALUnitDepacketizer<Format>()
    var nalUnits: [[UInt8]] = []
    var previous: UInt16?
    for (index, packet) in packets.enumerated() {
        let output = depacketizer.push(packet.payload, sequenceNumber: packet.sequenceNumber,
                                       continuous: previous.map { packet.sequenceNumber == $0 &+ 1 } ?? true)
        previous = packet.sequenceNumber
        for unit in output.nalUnits { precondition(unit.count >= Format.headerSize, "NAL unit shorter than its header out of the depacketiser") }
        nalUnits += output.nalUnits
        buffer.insert(packet, arrival: Double(index) * 0.004)
        for released in buffer.pop(now: Double(index) * 0.004) { _ = receiver.push(released) }
    }
    for released in buffer.flush() { _ = receiver.push(released) }
    _ = receiver.finish()
    _ = depacketizer.finish()
    precondition(buffer.received >= 0 && buffer.lost >= 0)

    let units = nalUnits.filter { Format.isNALUnitType(Format.nalUnitType($0)) }
    var again = NALUnitDepacketizer<Format>()
    var out: [[UInt8]] = []
    for (index, payload) in NALUnitPacketizer<Format>(mtu: mtu).payloads(for: units).enumerated() {
        precondition(payload.count <= max(Format.headerSize + 3, mtu - 12), "payload larger than the MTU allows")
        out += again.push(payload, sequenceNumber: UInt16(truncatingIfNeeded: index), continuous: true).nalUnits
    }
    precondition(out == units, "packetise/depacketise round trip differs")
}
