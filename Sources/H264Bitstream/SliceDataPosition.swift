/// Where slice_data() starts in a coded slice NAL unit, and the one place that turns it into the offset
/// VA-API's decode slice parameters carry.
///
/// VA convention: the offset counts the NAL unit header and the slice header as they are in the RBSP,
/// emulation prevention bytes (7.4.1) NOT counted, although the slice data buffer the driver gets is the
/// NAL unit with them still in. FFmpeg's vaapi_h264.c sends its unescaped reader's position; GStreamer
/// subtracts n_emulation_prevention_bytes; Intel's i965 adds the bytes back itself
/// (avc_get_first_mb_bit_offset_with_epb). A client that counts them makes hardware start the slice late.
///
/// Codec-neutral, so that H.265 (2-byte NAL header, byte-aligned slice_segment_header(): VA's
/// slice_data_byte_offset) uses the same rule.
public struct SliceDataPosition: Hashable, Sendable {
    /// Bytes of the NAL unit header (1 in H.264, 2 in H.265).
    public var nalUnitHeaderBytes: Int
    /// Bits of the slice header in the RBSP, after the NAL unit header.
    public var headerBitsInRBSP: Int
    /// Emulation prevention bytes in the NAL unit before the byte where slice_data() starts.
    public var emulationPreventionBytesInHeader: Int

    public init(nalUnitHeaderBytes: Int, headerBitsInRBSP: Int, emulationPreventionBytesInHeader: Int) {
        self.nalUnitHeaderBytes = nalUnitHeaderBytes
        self.headerBitsInRBSP = headerBitsInRBSP
        self.emulationPreventionBytesInHeader = emulationPreventionBytesInHeader
    }

    /// The position of the first slice_data() bit, given the header's RBSP length and the offsets of the
    /// emulation prevention bytes in the payload after the NAL unit header (as
    /// ``EmulationPrevention/removeWithPositions(_:)`` gives them).
    public init(nalUnitHeaderBytes: Int, headerBitsInRBSP: Int, removedPayloadOffsets removed: [Int]) {
        // The k-th removed byte (0-based) sits before RBSP byte `offset - k`; it precedes the slice data
        // when that RBSP byte is at or before the one holding the first slice_data() bit.
        let firstDataByte = headerBitsInRBSP / 8
        let before = removed.enumerated().filter { $0.element - $0.offset <= firstDataByte }.count
        self.init(nalUnitHeaderBytes: nalUnitHeaderBytes, headerBitsInRBSP: headerBitsInRBSP, emulationPreventionBytesInHeader: before)
    }

    /// VA's offset in bits from the first bit of the NAL unit header, emulation prevention not counted:
    /// VASliceParameterBufferH264.slice_data_bit_offset.
    public var vaBitOffset: Int { 8 * nalUnitHeaderBytes + headerBitsInRBSP }

    /// VA's offset in whole bytes, for a slice header that ends byte-aligned (H.265's
    /// slice_data_byte_offset, after byte_alignment()).
    public var vaByteOffset: Int { (vaBitOffset + 7) / 8 }

    /// The offset counted in the NAL unit as stored, emulation prevention bytes included: where a reader
    /// of the escaped bytes finds slice_data(). Not what VA wants; a client sending it is wrong whenever
    /// ``emulationPreventionBytesInHeader`` is not 0.
    public var escapedBitOffset: Int { vaBitOffset + 8 * emulationPreventionBytesInHeader }
}
