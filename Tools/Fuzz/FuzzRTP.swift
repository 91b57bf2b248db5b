// libFuzzer target: RTP and RTCP parsing, the jitter buffer, the H.264 depacketiser (RFC 6184) and frame
// grouping, and SDP parsing. Built by Tools/Fuzz/build.sh; the input is a list of datagrams, each preceded by
// its 16-bit big-endian length (Tools/Fuzz/make_corpus.py writes seeds from the conformance streams).
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

    var buffer = JitterBuffer(latency: 0.01, capacity: 64)
    var frames = H264FrameReceiver()
    var depacketizer = H264Depacketizer()
    var nalUnits: [[UInt8]] = []
    var previous: UInt16?
    for (index, datagram) in datagrams.enumerated() {
        if let packets = try? RTCPPacket.parseCompound(datagram) {
            // What parses must serialise and parse back to the same packets (padding aside).
            if let again = try? RTCPPacket.parseCompound(RTCPPacket.compound(packets)) {
                precondition(again.count == packets.count, "RTCP round trip changed the packet count")
            }
        }
        guard let packet = try? RTPPacket(parsing: datagram) else { continue }
        precondition((try? RTPPacket(parsing: packet.serialized())) == packet, "RTP round trip differs")
        let output = depacketizer.push(packet.payload, sequenceNumber: packet.sequenceNumber,
                                       continuous: previous.map { packet.sequenceNumber == $0 &+ 1 } ?? true)
        previous = packet.sequenceNumber
        for unit in output.nalUnits { precondition(!unit.isEmpty, "empty NAL unit out of the depacketiser") }
        nalUnits += output.nalUnits
        buffer.insert(packet, arrival: Double(index) * 0.004)
        for released in buffer.pop(now: Double(index) * 0.004) { _ = frames.push(released) }
    }
    for released in buffer.flush() { _ = frames.push(released) }
    _ = frames.finish()
    _ = depacketizer.finish()
    precondition(buffer.received >= 0 && buffer.lost >= 0)

    // NAL units of types 1-23 that came out must survive packetising again at a small MTU chosen by the input.
    let units = nalUnits.filter { (1...23).contains($0[0] & 0x1F) }
    let mtu = 16 + Int(bytes.first ?? 0) * 4
    var again = H264Depacketizer()
    var out: [[UInt8]] = []
    for (index, payload) in H264Packetizer(mtu: mtu).payloads(for: units).enumerated() {
        precondition(payload.count <= max(4, mtu - 12), "payload larger than the MTU allows")
        out += again.push(payload, sequenceNumber: UInt16(truncatingIfNeeded: index), continuous: true).nalUnits
    }
    precondition(out == units, "packetise/depacketise round trip differs")
    return 0
}
