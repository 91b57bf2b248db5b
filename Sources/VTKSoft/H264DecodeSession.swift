import CLibVA
import CLibYUV
import H264Bitstream

/// A decode context's codec state: turns each picture's VA buffers back into an access unit, has
/// libavcodec decode it, and writes the picture into the render target.
final class H264DecodeSession {
    private let rebuilder: ParameterSetRebuilder
    private let decoder: LibavcodecDecoder
    private var lastSPS: [UInt8] = []
    /// PPS NAL units sent, by pic_parameter_set_id; cleared when the SPS changes (libavcodec drops
    /// PPSs whose SPS changed).
    private var sentPPS: [Int: [UInt8]] = [:]
    /// num_ref_idx_l0/l1_default_active_minus1 per PPS id, learnt from slices that do not override them.
    private var refDefaults: [Int: (Int, Int)] = [:]
    /// The rebuilt SPS and PPSs as sent, parsed: what the slice headers are checked against.
    private var parameterSets = ParameterSets()

    init?(profile: VAProfile) {
        guard let decoder = LibavcodecDecoder() else { return nil }
        self.decoder = decoder
        rebuilder = ParameterSetRebuilder(profile: profile)
    }

    private struct Slice {
        let parameters: VASliceParameterBufferH264
        let nalUnit: ArraySlice<UInt8>
    }

    /// vaEndPicture's part: checks one picture's buffers and builds its access unit; `violations` gets the
    /// parameters that contradict the slice data (see ``ParameterViolation``), also when it then throws.
    func prepare(_ buffers: [RenderedBuffer], for surface: Surface, contextWidth: Int, contextHeight: Int,
                 violations: inout [ParameterViolation]) throws(VAError) -> PreparedAccessUnit {
        var picture: VAPictureParameterBufferH264?
        var matrix: VAIQMatrixBufferH264?
        var slices: [Slice] = []
        var waiting: [VASliceParameterBufferH264] = []
        for buffer in buffers {
            switch buffer.type {
            case VAPictureParameterBufferType:
                picture = buffer.element(as: VAPictureParameterBufferH264.self)
            case VAIQMatrixBufferType:
                matrix = buffer.element(as: VAIQMatrixBufferH264.self)
            case VASliceParameterBufferType:
                waiting += (0..<buffer.elementCount).map { buffer.element($0, as: VASliceParameterBufferH264.self) }
            case VASliceDataBufferType:
                // Slice parameters describe the slice data buffer rendered after them.
                guard !waiting.isEmpty else { throw .invalidParameter }
                for parameters in waiting {
                    let start = Int(parameters.slice_data_offset), size = Int(parameters.slice_data_size)
                    // Partial slices (VA_SLICE_DATA_FLAG_BEGIN/MIDDLE/END) are not reassembled.
                    guard parameters.slice_data_flag == UInt32(VA_SLICE_DATA_FLAG_ALL), size > 1,
                          start >= 0, start + size <= buffer.bytes.count else { throw .invalidParameter }
                    slices.append(Slice(parameters: parameters, nalUnit: buffer.bytes[start..<start + size]))
                }
                waiting = []
            default:
                throw .invalidBuffer
            }
        }
        guard let picture, !slices.isEmpty, waiting.isEmpty else { throw .invalidParameter }
        let seq = picture.seq_fields.bits
        // 4:2:0, 8 bits: what the reported profiles decode.
        guard seq.chroma_format_idc == 1, picture.bit_depth_luma_minus8 == 0, picture.bit_depth_chroma_minus8 == 0 else {
            throw .unsupportedRTFormat
        }
        let width = (Int(picture.picture_width_in_mbs_minus1) + 1) * 16
        let height = (Int(picture.picture_height_in_mbs_minus1) + 1) * 16
        guard width <= max(contextWidth, surface.pitch), height <= surface.allocatedHeight else { throw .invalidParameter }

        var accessUnit: [UInt8] = []
        let sps = rebuilder.sequenceParameterSet(picture)
        if sps != lastSPS {
            lastSPS = sps
            sentPPS = [:]
            parameterSets = ParameterSets()
            _ = try? parameterSets.store(NALUnit(sps))
            append(sps, to: &accessUnit)
        }
        var headers: [SliceHeaderPrefix] = []
        for slice in slices {
            do { headers.append(try SliceHeaderPrefix(nalUnit: slice.nalUnit, picture: picture)) } catch { throw .invalidParameter }
        }
        for (index, (slice, header)) in zip(slices, headers).enumerated() {
            let id = header.pictureParameterSetID
            var defaults = refDefaults[id] ?? (0, 0)
            if !header.overridesRefCounts {
                if header.isP || header.isB { defaults.0 = Int(slice.parameters.num_ref_idx_l0_active_minus1) }
                if header.isB { defaults.1 = Int(slice.parameters.num_ref_idx_l1_active_minus1) }
            }
            refDefaults[id] = defaults
            let pps = rebuilder.pictureParameterSet(picture, scaling: matrix, id: id, defaults: defaults)
            if sentPPS[id] != pps {
                sentPPS[id] = pps
                _ = try? parameterSets.store(NALUnit(pps))
                append(pps, to: &accessUnit)
            }
            if let violation = SliceDataOffsetCheck.violation(slice.parameters, index: index, nalUnit: slice.nalUnit, parameterSets: parameterSets) {
                violations.append(violation)
            }
        }
        for slice in slices { append(Array(slice.nalUnit), to: &accessUnit) }
        return PreparedAccessUnit(bytes: accessUnit, width: width, height: height)
    }

    /// The worker's part: libavcodec decodes the access unit into `surface`.
    func decode(_ unit: PreparedAccessUnit, into surface: Surface) throws(VAError) {
        let outcome = decoder.decode(unit.bytes) { decoded in
            let copyWidth = min(decoded.width, unit.width, surface.pitch)
            let copyHeight = min(decoded.height, unit.height, surface.allocatedHeight)
            I420ToNV12(decoded.planes.0, decoded.strides.0, decoded.planes.1, decoded.strides.1, decoded.planes.2, decoded.strides.2,
                       surface.luma, Int32(surface.pitch), surface.chroma, Int32(surface.pitch), Int32(copyWidth), Int32(copyHeight))
        }
        try surface.record(outcome, width: unit.width, height: unit.height)
    }

    private func append(_ nalUnit: [UInt8], to accessUnit: inout [UInt8]) {
        accessUnit += [0, 0, 0, 1]
        accessUnit += nalUnit
    }
}
