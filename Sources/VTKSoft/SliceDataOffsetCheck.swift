import CLibVA
import H264Bitstream

/// Checks a slice's slice_data_bit_offset as hardware would meet it: the slice header is parsed again
/// from the slice data buffer, with parameter sets rebuilt from the client's VA parameters, and the
/// position where slice_data() really starts, in VA's convention (``SliceDataPosition``: emulation
/// prevention bytes not counted), must be what the client sent.
enum SliceDataOffsetCheck {
    static let field = "slice_data_bit_offset"

    /// nil when the offset is right, or when the header does not parse with these parameter sets (the
    /// decode then fails or conceals on its own).
    static func violation(_ parameters: VASliceParameterBufferH264, index: Int, nalUnit: ArraySlice<UInt8>,
                          parameterSets: ParameterSets) -> ParameterViolation? {
        guard let header = try? SliceHeader(nalUnit: NALUnit(bytes: nalUnit, offset: 0), parameterSets: parameterSets) else { return nil }
        let position = header.sliceDataPosition
        let sent = Int(parameters.slice_data_bit_offset)
        guard sent != position.vaBitOffset else { return nil }
        let explanation = position.emulationPreventionBytesInHeader > 0 && sent == position.escapedBitOffset
            ? "counts the \(position.emulationPreventionBytesInHeader) emulation prevention byte(s) in the slice header, which VA leaves out"
            : "slice_data() starts at bit \(position.vaBitOffset) of the NAL unit, emulation prevention bytes not counted"
        return ParameterViolation(field: field, slice: index, sent: sent, expected: position.vaBitOffset, explanation: explanation)
    }
}
