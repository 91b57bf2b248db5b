@testable import CompressionSession
import CLibVA
import H265Bitstream
import NALStream
import Testing
import VideoAcceleration

/// SAO in vtk's H.265 encode parameters. Rule (as FFmpeg's hevc_vaapi decides it): SAO is on where the driver
/// reports VAConfigAttribEncHEVCFeatures with sao supported or required, off where it reports it unsupported or
/// not at all (FFmpeg's default), and the slices then carry slice_sao_luma_flag = slice_sao_chroma_flag = the
/// SPS flag. The written headers are read back with vtk's H.265 parser, the independent side of the writer.
extension H265ParameterTests {
    @Test("SAO from VAConfigAttribEncHEVCFeatures: SPS, slice headers, packed header and VA buffers agree", arguments: [nil, false, true])
    func sampleAdaptiveOffset(_ reported: Bool?) throws {
        var caps = Self.capabilities()
        caps.hevcSampleAdaptiveOffset = reported
        let c = try Self.configuration(CompressionProperties(), caps: caps)
        let on = reported == true
        #expect(c.sampleAdaptiveOffset == on)
        let headers = H265StreamHeaders(configuration: c)
        var sets = H265ParameterSets()
        for unit in headers.parameterSetNALUnits { try sets.store(unit) }
        #expect(sets.sps[0]?.sampleAdaptiveOffsetEnabledFlag == on)
        let parameters = H265EncodeParameters(headers: headers)
        for plan in Self.plans(c, count: 3) {
            let packed = headers.packedSliceHeader(plan, leading: false)
            let units = AnnexBScanner.nalUnits(in: packed.bytes)
            let parsed = try H265SliceSegmentHeader(nalUnit: try #require(units.first), parameterSets: sets)
            #expect(parsed.saoLumaFlag == on && parsed.saoChromaFlag == on, "picture \(plan.displayIndex)")
            let slice = parameters.slice(plan, leading: false) { _ in VASurfaceID(0) }
            #expect(slice.slice_fields.bits.slice_sao_luma_flag == (on ? 1 : 0) && slice.slice_fields.bits.slice_sao_chroma_flag == (on ? 1 : 0))
        }
        let sequence = parameters.sequence(rate: H264RateSettings(configuration: c))
        #expect(sequence.seq_fields.bits.sample_adaptive_offset_enabled_flag == (on ? 1 : 0))
    }
}
