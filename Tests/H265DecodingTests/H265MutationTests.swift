import Foundation
import H264Bitstream
import H265Bitstream
import H265Decoding
import Testing
import VTKTestSupport
import VideoDecoding

/// The decoding process on damaged copies of the H.265 streams (NAL units dropped, duplicated, swapped;
/// cuts; zero runs; bit flips): never a crash or a hang, every picture decoded is released exactly once,
/// and a lost reference picture is reported as a problem, not silently.
struct H265MutationTests {
    static func mutations(_ bytes: [UInt8], seed: UInt64) -> [(String, [UInt8])] {
        var generator = SeededRandom(seed: seed)
        let units = AnnexBScanner.nalUnits(in: bytes)
        func stream(_ list: [NALUnit]) -> [UInt8] { AnnexBScanner.byteStream(list) }
        let vcl = units.indices.filter { units[$0].h265Header.type.isVCL }
        let pick = { (g: inout SeededRandom) in vcl[Int(g.next() % UInt64(vcl.count))] }
        var out: [(String, [UInt8])] = []
        // The first slice segment of a reference picture (TRAIL_R) in the first half: later pictures miss it.
        let references = vcl.filter { units[$0].h265Header.type == .trailR && units[$0].bytes.dropFirst(2).first.map { $0 & 0x80 != 0 } == true }
        if let lost = references.prefix(max(references.count / 2, 1)).last {
            var dropped = units
            dropped.remove(at: lost)
            out.append(("drop a reference picture's first slice", stream(dropped)))
        }
        var twice = units; let d = pick(&generator); twice.insert(units[d], at: d); out.append(("duplicate a slice", stream(twice)))
        var swapped = units; let s = pick(&generator); if s + 1 < swapped.count { swapped.swapAt(s, s + 1) }; out.append(("swap two NAL units", stream(swapped)))
        out.append(("cut", Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count))))))
        var zeros = bytes; let z = Int(generator.next() % UInt64(bytes.count - 64)); for i in z..<(z + 64) { zeros[i] = 0 }; out.append(("zero run", zeros))
        var flips = bytes; for _ in 0..<20 { let i = Int(generator.next() % UInt64(bytes.count)); flips[i] ^= UInt8(1 << (generator.next() % 8)) }
        out.append(("bit flips", flips))
        return out
    }

    @Test("damaged copies of every H.265 stream: no crash, every picture released once", arguments: H265ConformanceStream.names)
    func mutated(_ name: String) throws {
        guard let stream = H265ConformanceStream.named(name) else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let bytes = Array(try Data(contentsOf: stream.url))
        for (what, damaged) in Self.mutations(bytes, seed: UInt64(bytes.count)) {
            var process = H265DecodingProcess()
            var events: [H265DecoderEvent] = []
            for unit in H265AccessUnitAssembler.accessUnits(in: damaged) { events += process.decode(unit) }
            events += process.flush()
            var decoded = Set<PictureID>(), released = Set<PictureID>(), problems = 0
            for event in events {
                switch event {
                case .decode(let request): decoded.insert(request.picture.id)
                case .released(let id): #expect(released.insert(id).inserted, "\(name), \(what): \(id) released twice")
                case .problem: problems += 1
                default: break
                }
            }
            #expect(decoded == released, "\(name), \(what)")
            if what.hasPrefix("drop") { #expect(problems > 0, "\(name): a lost reference picture went unreported") }
        }
    }
}
