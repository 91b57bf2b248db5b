import Foundation
import Testing
import VTKTestSupport
@testable import H264Bitstream

@Suite("Access units and parameter sets of real streams")
struct AccessUnitTests {
    @Test("Conformance streams: access-unit count and cropped size equal reference.tsv",
          .enabled(if: !ConformanceStream.all.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)),
          arguments: ConformanceStream.all)
    func conformance(stream: ConformanceStream) throws {
        let bytes = [UInt8](try Data(contentsOf: stream.url))
        let units = AccessUnitAssembler.accessUnits(in: bytes)
        let pictures = units.filter(\.hasPicture)
        #expect(pictures.count == stream.frames)
        #expect(units.allSatisfy { $0.problems.isEmpty }, "\(units.flatMap(\.problems))")
        let format = try H264FormatDescription(parameterSets: try #require(pictures.first).parameterSets)
        #expect(format.displayWidth == stream.width)
        #expect(format.displayHeight == stream.height)
        #expect(format.profileName == stream.profile || (stream.profile == "Constrained Baseline" && format.profileName == "Baseline"),
                "profile \(format.profileName)")
        // The same stream in chunks of 1000 bytes gives the same access units.
        var assembler = AccessUnitAssembler()
        var chunked: [AccessUnit] = []
        var i = 0
        while i < bytes.count {
            chunked += assembler.append(bytes[i..<min(i + 1000, bytes.count)])
            i += 1000
        }
        chunked += assembler.finish()
        #expect(chunked.map { $0.nalUnits } == units.map { $0.nalUnits })
    }

    @Test("Streams made with libx264: access-unit count and size equal what ffprobe reports",
          .enabled(if: ProcessRunner.hasFFmpeg, "ffmpeg is not installed"),
          arguments: GeneratedStream.standard)
    func generated(stream: GeneratedStream) throws {
        let bytes = [UInt8](try Data(contentsOf: try stream.url()))
        let pictures = AccessUnitAssembler.accessUnits(in: bytes).filter(\.hasPicture)
        #expect(pictures.count == stream.frames)
        let format = try H264FormatDescription(parameterSets: try #require(pictures.first).parameterSets)
        #expect(format.displayWidth == stream.width && format.displayHeight == stream.height)
        #expect(format.codedWidth % 16 == 0 && format.codedWidth >= stream.width)
        #expect(pictures.first?.isIDR == true)
        // Several slices per picture where the recipe asks for them.
        if stream.name.contains("slices") { #expect(pictures.allSatisfy { $0.slices.count == 4 }) }
        if stream.name.contains("bpyramid") { #expect(pictures.contains { $0.primarySliceHeader?.sliceType == .b }) }
    }

    @Test("The damaged streams of h264-robustness assemble without a crash",
          .enabled(if: !ConformanceStream.robustness.isEmpty, Comment(rawValue: TestPaths.sharedMissingMessage)))
    func robustness() throws {
        for url in ConformanceStream.robustness {
            let units = AccessUnitAssembler.accessUnits(in: [UInt8](try Data(contentsOf: url)))
            switch url.lastPathComponent {
            case "BA_MW_D_P_LOST.264":
                // BA_MW_D has 100 pictures; one P picture is missing (ffprobe counts 99 too).
                #expect(units.filter(\.hasPicture).count == 99)
            case let name where name.hasPrefix("sps_subsetsps"):
                // Only an SVC enhancement layer (type 20) follows the SPS, subset SPS and PPSs: no base
                // picture. The subset SPS must not be taken for an SPS, and every unit must be kept.
                #expect(units.flatMap(\.nalUnits).map(\.type.rawValue) == [7, 15, 8, 8, 20])
                #expect(units.last?.parameterSets.sps.count == 1)
                #expect(units.allSatisfy { !$0.hasPicture })
            default:
                #expect(!units.isEmpty, "\(url.lastPathComponent)")
            }
        }
    }

    @Test("Parameter sets written back from the parsed values parse to the same values, byte-identical where the coding is canonical")
    func parameterSetRoundTrip() throws {
        var checked = 0
        for url in try TestStreams.available() {
            var sets = ParameterSets()
            for unit in AnnexBScanner.nalUnits(in: [UInt8](try Data(contentsOf: url))) {
                guard unit.type == .sequenceParameterSet || unit.type == .pictureParameterSet else { continue }
                try sets.store(unit)
                if unit.type == .sequenceParameterSet {
                    let sps = try SequenceParameterSet(nalUnit: unit)
                    let rewritten = sps.nalUnit(nalRefIdc: unit.nalRefIdc)
                    #expect(try SequenceParameterSet(nalUnit: rewritten) == sps, "\(url.lastPathComponent) SPS")
                    if !sps.seqScalingMatrixPresentFlag && !sps.vui.isTruncated { #expect(rewritten == unit, "\(url.lastPathComponent) SPS bytes") }
                } else {
                    let table = sets.sps
                    let pps = try PictureParameterSet(nalUnit: unit) { table[$0] }
                    let sps = try #require(sets.sps[pps.seqParameterSetId])
                    let rewritten = pps.nalUnit(sps: sps, nalRefIdc: unit.nalRefIdc)
                    #expect(try PictureParameterSet(nalUnit: rewritten) { table[$0] } == pps, "\(url.lastPathComponent) PPS")
                    if !pps.picScalingMatrixPresentFlag { #expect(rewritten == unit, "\(url.lastPathComponent) PPS bytes") }
                }
                checked += 1
            }
        }
        #expect(checked > 0)
    }
}
