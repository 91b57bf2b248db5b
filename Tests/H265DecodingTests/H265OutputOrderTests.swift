import Foundation
import H264Bitstream
import H265Bitstream
import H265Decoding
import Testing
import VTKTestSupport
import VideoDecoding

/// The H.265 decoding process without VA: output order, RPS marking and RASL handling on the conformance
/// streams. FFmpeg's decoder gave reference.tsv's frame counts; within a coded video sequence output must be
/// in increasing POC order (C.5.2), and every decoded picture must be output or released exactly once.
struct H265OutputOrderTests {
    static func run(_ units: [H265AccessUnit]) -> (outputs: [H265DecodedPicture], events: [H265DecoderEvent]) {
        var process = H265DecodingProcess()
        var events: [H265DecoderEvent] = []
        for unit in units { events += process.decode(unit) }
        events += process.flush()
        let outputs = events.compactMap { if case .output(let p) = $0 { p } else { nil } }
        return (outputs, events)
    }

    @Test("every stream outputs reference.tsv's frame count in POC order, surfaces balanced", arguments: H265ConformanceStream.names)
    func outputOrder(_ name: String) throws {
        guard let stream = H265ConformanceStream.named(name) else { try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage)) }
        let units = H265AccessUnitAssembler.accessUnits(in: Array(try Data(contentsOf: stream.url)))
        let (outputs, events) = Self.run(units)
        #expect(outputs.count == stream.frames)
        // Within a sequence (between IDR/IRAP-with-flush points) POCs increase.
        var lastPOC = Int.min
        for picture in outputs {
            if picture.nalUnitType.isIDR { lastPOC = Int.min }
            #expect(picture.poc > lastPOC, "POC \(picture.poc) after \(lastPOC)")
            lastPOC = picture.poc
        }
        var decoded = Set<PictureID>(), released = Set<PictureID>()
        for event in events {
            switch event {
            case .decode(let request):
                decoded.insert(request.picture.id)
                // The DPB never holds more than sps_max_dec_pic_buffering pictures, the current one included.
                #expect(request.referencePictures.count < request.sps.maxDecPicBuffering)
                for slice in request.slices { #expect(!(slice.lists.list0 + slice.lists.list1).contains(nil)) }
            case .released(let id): #expect(released.insert(id).inserted, "\(id) released twice")
            case .problem(let problem): Issue.record("\(problem)")
            default: break
            }
        }
        #expect(decoded == released)
    }

    @Test("starting at a CRA mid-stream: its RASL pictures are skipped and reported, the rest is output")
    func startAtCRA() throws {
        guard let stream = H265ConformanceStream.named("x265_cif_opengop_cra.265") else {
            try Test.cancel(Comment(rawValue: TestPaths.sharedMissingMessage))
        }
        let all = H265AccessUnitAssembler.accessUnits(in: Array(try Data(contentsOf: stream.url)))
        guard let craIndex = all.firstIndex(where: { $0.slices.first?.header.nalUnitType == .cra }) else {
            Issue.record("no CRA picture"); return
        }
        // The parameter sets come with the first access unit; give them to the CRA's.
        var units = Array(all[craIndex...])
        let header = all[0].nalUnits.filter { (32...34).contains($0.h265Header.type.rawValue) }
        var assembler = H265AccessUnitAssembler()
        units = (header + units.flatMap(\.nalUnits)).compactMap { assembler.push($0) } + assembler.finish()
        let rasl = units.filter { $0.slices.first?.header.nalUnitType.isRASL == true }
        let raslAfterCRA = units.drop { $0.slices.first?.header.nalUnitType != .cra }.dropFirst()
            .prefix { $0.slices.first?.header.nalUnitType.isRASL == true }.count
        #expect(raslAfterCRA > 0)
        let (outputs, events) = Self.run(units)
        let skipped = events.filter { if case .problem(.skippedRASL) = $0 { true } else { false } }.count
        #expect(skipped == raslAfterCRA)
        #expect(outputs.count == units.filter(\.hasPicture).count - skipped)
        #expect(rasl.count > skipped, "later CRAs' RASL pictures are decoded")
    }
}
