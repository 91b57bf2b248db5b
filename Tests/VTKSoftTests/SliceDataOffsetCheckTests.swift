import CLibVA
import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// vtksoft parses each slice header again from the slice data buffer, as hardware would, and counts a
/// slice_data_bit_offset that is not where slice_data() starts in VA's convention (emulation prevention
/// bytes not counted). FFmpeg and vtk show 0 violations in VAParameterComparisonTests; this client makes
/// the mistake on purpose.
@Suite("vtksoft checks slice_data_bit_offset", .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct SliceDataOffsetCheckTests {
    @Test("An offset that counts the emulation prevention byte in the slice header is a violation; VA's offset is not")
    func offsetCountingEmulationPrevention() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let client = VTKSoftVAClient(display: owner.display)
        let plain = try client.encodeOnePicture()
        // The same picture with a 16-bit frame_num and idr_pic_id 65535: an EPB inside the slice header.
        let edited = try EditedStream.apply(.emulationPreventionInSliceHeaders, to: plain)
        var sets = ParameterSets()
        var position: SliceDataPosition?
        for unit in AnnexBScanner.nalUnits(in: edited) where try !sets.store(unit) && unit.type == .idrSlice {
            position = try SliceHeader(nalUnit: unit, parameterSets: sets).sliceDataPosition
        }
        let epbs = try #require(position).emulationPreventionBytesInHeader
        #expect(epbs == 1)

        func violations() -> Int? { VTKSoftCounters.violations(in: owner.display) }
        #expect(violations() == 0)
        // Right offsets: no violation, with or without an EPB in the header; the EPB-free stream's escaped
        // offset is VA's offset.
        #expect(VTKSoftVAClient.error(try client.decodeOnePicture(plain)) < 3)
        #expect(VTKSoftVAClient.error(try client.decodeOnePicture(plain, sliceDataBitOffset: \.escapedBitOffset)) < 3)
        #expect(VTKSoftVAClient.error(try client.decodeOnePicture(edited)) < 3)
        #expect(violations() == 0)
        // The offset counting the EPB: hardware would start the slice 8 bits late. vtksoft still decodes
        // (libavcodec reads the header itself) and counts it.
        #expect(VTKSoftVAClient.error(try client.decodeOnePicture(edited, sliceDataBitOffset: \.escapedBitOffset)) < 3)
        #expect(violations() == 1)
        // Any other wrong offset is counted too.
        _ = try client.decodeOnePicture(plain) { $0.vaBitOffset + 1 }
        #expect(violations() == 2)
        #expect(VTKSoftCounters.live(in: owner.display) == 0)
        owner.terminate()
    }
}
