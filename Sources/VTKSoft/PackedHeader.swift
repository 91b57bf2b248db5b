import CLibVA
import H264Bitstream

/// One VAEncPackedHeaderParameterBuffer with the VAEncPackedHeaderDataBuffer that follows it: bytes the
/// client built itself (Annex B, start codes included) for the driver to put in the stream verbatim.
struct PackedHeader {
    enum Kind: Equatable {
        case sequence, picture, slice, rawData

        /// VAEncPackedHeaderType → kind; H264_SEI is the deprecated misc form of raw data (va.h).
        init?(_ type: UInt32) {
            switch type {
            case UInt32(VAEncPackedHeaderSequence.rawValue): self = .sequence
            case UInt32(VAEncPackedHeaderPicture.rawValue): self = .picture
            case UInt32(VAEncPackedHeaderSlice.rawValue): self = .slice
            case UInt32(VAEncPackedHeaderRawData.rawValue), UInt32(VAEncPackedHeaderMiscMask.rawValue) | 1: self = .rawData
            default: return nil
            }
        }

        var name: String { ["sequence", "picture", "slice", "raw_data"][[Kind.sequence, .picture, .slice, .rawData].firstIndex(of: self)!] }
    }

    let kind: Kind
    let bitLength: Int
    let hasEmulationBytes: Bool
    /// The data buffer's bytes up to bit_length (the last byte may be partly used).
    let bytes: [UInt8]
    /// Index of the slice parameter that follows it in the render order (i965 puts raw data in front of
    /// that slice); equal to the slice count when none follows.
    var nextSlice: Int

    /// Pairs a parameter buffer with its data buffer; bit_length must fit the data buffer (i965 and iHD
    /// read bit_length bits from it: more is an out-of-bounds read, so refused as INVALID_PARAMETER).
    init(parameter: VAEncPackedHeaderParameterBuffer, data: [UInt8], nextSlice: Int) throws(VAError) {
        guard let kind = Kind(parameter.type) else { throw VAError.invalidParameter.because("packed header type \(parameter.type)") }
        let bits = Int(parameter.bit_length)
        guard bits > 0, (bits + 7) / 8 <= data.count else {
            throw VAError.invalidParameter.because("packed header bit_length \(bits) does not fit its \(data.count)-byte data buffer")
        }
        self.kind = kind
        bitLength = bits
        hasEmulationBytes = parameter.has_emulation_bytes != 0
        bytes = Array(data.prefix((bits + 7) / 8))
        self.nextSlice = nextSlice
    }

    /// The NAL units of a whole-byte header (SPS, PPS, SEI, AUD) without start codes.
    var nalUnits: [NALUnit] { AnnexBScanner.nalUnits(in: bytes) }

    /// A packed slice header as the engine takes it: NAL header byte and slice_header() bits, start code
    /// dropped and emulation prevention removed (each removed byte takes 8 bits off the length).
    var sliceHeaderRBSP: (bytes: [UInt8], bitLength: Int)? {
        // The offset of the 0x000001's first zero: the NAL unit starts 3 bytes on.
        guard let start = AnnexBScanner.startCodeOffsets(in: bytes).first.map({ $0 + 3 }), start < bytes.count else { return nil }
        let startCodeBits = 8 * start
        let escaped = Array(bytes[start...])
        let (rbsp, removed) = EmulationPrevention.removeWithPositions(escaped[...])
        let length = bitLength - startCodeBits - 8 * removed.count
        guard length > 8 else { return nil }
        return (Array(rbsp.prefix((length + 7) / 8)), length)
    }

    /// The packed slice header (the `index`th of the picture) parsed by `parse`, given it as a NAL unit (escaped
    /// again, zero bytes after it for the parser to read past its last bit), with its RBSP: INVALID_PARAMETER
    /// when it has no start code and NAL header, or does not parse.
    func parsedSliceHeader<Header>(index: Int, _ parse: (NALUnit) throws(BitstreamError) -> Header) throws(VAError)
        -> (header: Header, rbsp: (bytes: [UInt8], bitLength: Int)) {
        guard let rbsp = sliceHeaderRBSP else { throw VAError.invalidParameter.because("packed slice header \(index) has no start code and NAL header") }
        let unit = NALUnit(EmulationPrevention.insert(rbsp.bytes) + [0, 0, 0, 0])
        do throws(BitstreamError) { return (try parse(unit), rbsp) } catch {
            throw VAError.invalidParameter.because("packed slice header \(index) does not parse: \(error)")
        }
    }
}
