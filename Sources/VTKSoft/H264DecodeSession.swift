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

    /// vaEndPicture's part: checks one picture's buffers and builds its access unit; `violations` gets the
    /// parameters that contradict the slice data (see ``ParameterViolation``), also when it then throws.
    func prepare(_ buffers: [RenderedBuffer], for surface: Surface, contextWidth: Int, contextHeight: Int,
                 violations: inout [ParameterViolation]) throws(VAError) -> PreparedAccessUnit {
        let rendered = try RenderedPicture<VAPictureParameterBufferH264, VAIQMatrixBufferH264, VASliceParameterBufferH264>(buffers, headerSize: 1)
        let picture = rendered.picture, matrix = rendered.matrix, slices = rendered.slices
        let seq = picture.seq_fields.bits
        // 4:2:0, 8 bits: what the reported profiles decode.
        guard seq.chroma_format_idc == 1, picture.bit_depth_luma_minus8 == 0, picture.bit_depth_chroma_minus8 == 0 else {
            throw .unsupportedRTFormat
        }
        let width = (Int(picture.picture_width_in_mbs_minus1) + 1) * 16
        let height = (Int(picture.picture_height_in_mbs_minus1) + 1) * 16
        guard width <= max(contextWidth, surface.pitch), height <= surface.allocatedHeight else { throw .invalidParameter }

        var accessUnit: [NALUnit] = []
        let sps = rebuilder.sequenceParameterSet(picture)
        if sps != lastSPS {
            lastSPS = sps
            sentPPS = [:]
            parameterSets = ParameterSets()
            _ = try? parameterSets.store(NALUnit(sps))
            accessUnit.append(NALUnit(sps))
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
                accessUnit.append(NALUnit(pps))
            }
            if let violation = SliceDataOffsetCheck.violation(slice.parameters, index: index, nalUnit: slice.nalUnit, parameterSets: parameterSets) {
                violations.append(violation)
            }
        }
        accessUnit += slices.map { NALUnit(bytes: $0.nalUnit, offset: 0) }
        return PreparedAccessUnit(bytes: AnnexBScanner.byteStream(accessUnit), width: width, height: height)
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
}
