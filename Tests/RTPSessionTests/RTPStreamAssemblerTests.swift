import DecompressionSession
import Foundation
import H264Bitstream
import NALStream
import RTP
import RTPSession
import Testing
import VTKTestSupport

/// The assembly without sockets or a clock: datagrams in, with arrival times the test gives; frames and access
/// units out. The oracle for access units is the Annex B assembler run over the whole stream, which never saw RTP.
@Suite("RTP assembly: packets to access units")
struct RTPStreamAssemblerTests {
    typealias Assembler = RTPStreamAssembler<H264Codec>

    static func packet(_ sequence: UInt16, timestamp: UInt32 = 0, ssrc: UInt32 = 7, payloadType: UInt8 = 96, marker: Bool = true,
                       payload: [UInt8] = [0x65, 0x88, 0x80]) -> [UInt8] {
        RTPPacket(marker: marker, payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc, payload: payload).serialized()
    }

    @Test("The first dynamic payload type and SSRC are locked on; others are counted, not taken")
    func intake() {
        var assembler = Assembler(payloadType: nil, latency: 0)
        #expect(assembler.take([1, 2], at: 0) == [.problem(.truncated(what: "RTP packet", length: 2, needed: 12))])
        #expect(assembler.take(Self.packet(10, payloadType: 33), at: 0) == [.problem(.wrongPayloadType(got: 33, expected: 96))],
                "a static payload type is not taken for video")
        let step1 = assembler.take(Self.packet(11, payloadType: 100), at: 0)
        #expect(step1.first == .accepted(sequence: 11 + 65536, timestamp: 0, size: 15),
                "sequence numbers are extended with room below the first")
        #expect(assembler.payloadType == 100)
        #expect(assembler.senderSSRC == 7)
        #expect(assembler.take(Self.packet(12, payloadType: 96), at: 0) == [.problem(.wrongPayloadType(got: 96, expected: 100))])
        #expect(assembler.take(Self.packet(13, ssrc: 8, payloadType: 100), at: 0) == [.otherSource])
        #expect(assembler.wrongCodec == nil)
    }

    @Test("An H.265 VPS sent to an H.264 receiver names the codec; the SDP's payload type is the only one taken")
    func wrongCodec() {
        var assembler = Assembler(payloadType: 98, latency: 0)
        #expect(assembler.take(Self.packet(1, payloadType: 96), at: 0) == [.problem(.wrongPayloadType(got: 96, expected: 98))])
        _ = assembler.take(Self.packet(2, payloadType: 98, payload: [0x40, 0x01, 0x0C, 0x01]), at: 0)
        #expect(assembler.wrongCodec == "H.265")
    }

    @Test("A gap is released with the count lost before it; a gap before non-reference data (NRI 0) asks no keyframe")
    func gaps() {
        var assembler = Assembler(payloadType: nil, latency: 0.05)
        _ = assembler.take(Self.packet(100, timestamp: 0), at: 1.0)
        _ = assembler.take(Self.packet(103, timestamp: 9000, payload: [0x01, 0x88]), at: 1.01)  // NRI 0
        let step2 = assembler.release(now: 1.02)
        #expect(step2.isEmpty, "the first packet waits out the latency")
        #expect(assembler.release(now: 1.05).map(\.packet.sequenceNumber) == [100], "103 waits for 101 and 102")
        #expect(abs((assembler.nextDeadline ?? 0) - 1.06) < 1e-9)
        let late = assembler.release(now: 1.06)
        #expect(late.map(\.lostBefore) == [2])
        #expect(!Assembler.gapAsksKeyframe(late[0]))
        _ = assembler.take(Self.packet(105, timestamp: 12000), at: 1.1)
        let next = assembler.release(now: 1.2)
        #expect(next.map(\.lostBefore) == [1])
        #expect(Assembler.gapAsksKeyframe(next[0]), "NRI 3 may be referred to")
        #expect(assembler.counts.lost == 3)
    }

    /// The generated stream as RTP packets (FU-A and STAP-A at MTU 300), one access unit per timestamp.
    static func packets(of stream: [UInt8]) -> (packets: [[UInt8]], units: [AccessUnit]) {
        let units = AccessUnitAssembler.accessUnits(in: stream)
        let packetizer = H264Packetizer(mtu: 300)
        var packets: [[UInt8]] = []
        var sequence: UInt16 = 65530  // wraps
        for (index, unit) in units.enumerated() {
            let payloads = packetizer.payloads(for: unit.nalUnits.map { Array($0.bytes) })
            for (n, payload) in payloads.enumerated() {
                packets.append(packet(sequence, timestamp: UInt32(index * 3600), marker: n == payloads.count - 1, payload: payload))
                sequence &+= 1
            }
        }
        return (packets, units)
    }

    /// All packets through the assembler (except `dropping`), in order.
    static func assemble(_ packets: [[UInt8]], dropping: Set<Int> = []) -> [Assembler.Assembled] {
        var assembler = Assembler(payloadType: 96, latency: 0)
        var out: [Assembler.Assembled] = []
        func frames(_ received: [RTPAccessUnit]) {
            for frame in received {
                let ticks = Int64(frame.timestamp)
                out += assembler.accessUnits(frame.nalUnits, damage: frame.damaged ? "lost" : nil, lossBefore: frame.lossBefore, presentation: ticks)
            }
        }
        for (index, packet) in packets.enumerated() where !dropping.contains(index) {
            _ = assembler.take(packet, at: Double(index))
            for released in assembler.release(now: Double(index)) { frames(assembler.push(released)) }
        }
        for released in assembler.releaseAll() { frames(assembler.push(released)) }
        frames(assembler.finishReceiving())
        return out + assembler.finishAccessUnits().map { Assembler.Assembled(unit: $0) }
    }

    static var ready: Bool { ProcessRunner.hasFFmpeg }

    @Test("Every access unit comes out as the Annex B assembler makes it, intact, with its NAL units byte for byte",
          .enabled(if: ready, "needs ffmpeg (libx264) to make the stream"))
    func wholeStream() throws {
        let stream = try Array(Data(contentsOf: GeneratedStream.standard[1].url()))
        let (packets, units) = Self.packets(of: stream)
        let assembled = Self.assemble(packets)
        #expect(assembled.count == units.count)
        #expect(assembled.map { $0.unit.nalUnits.map { Array($0.bytes) } } == units.map { $0.nalUnits.map { Array($0.bytes) } })
        #expect(assembled.allSatisfy { $0.damage == nil && !$0.asksKeyframe && $0.unit.isIntact })
    }

    @Test("A packet lost inside a reference picture of four slices flags that picture and asks a keyframe; the pictures around it stay intact",
          .enabled(if: ready, "needs ffmpeg (libx264) to make the stream"))
    func lostPacket() throws {
        // Four slices a picture: a lost fragment loses one slice, and the picture comes with the other three.
        let stream = try Array(Data(contentsOf: GeneratedStream.standard[2].url()))
        let (packets, units) = Self.packets(of: stream)
        // The second packet of the first picture that takes three or more: a fragment in its middle.
        var first = 0
        var target: Int?
        for (index, unit) in units.enumerated() {
            let count = H264Packetizer(mtu: 300).payloads(for: unit.nalUnits.map { Array($0.bytes) }).count
            if count >= 3, unit.isReference, index > 0 { target = index; break }
            first += count
        }
        let picture = try #require(target)
        let assembled = Self.assemble(packets, dropping: [first + 1])
        #expect(assembled.count == units.count)
        let hit = assembled[picture]
        #expect(hit.damage == "lost")
        #expect(!hit.unit.isIntact, "flagged")
        #expect(hit.asksKeyframe)
        #expect(assembled[picture - 1].damage == nil)
        #expect(assembled[picture + 1].damage == nil)
    }
}
