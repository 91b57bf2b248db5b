import CLibVA
import CLibYUV
import COpenH264

/// An encode context's codec state: reads each picture's VA parameters, refuses what openh264 cannot
/// honour, sets openh264 up accordingly and encodes the source surface.
final class OpenH264EncodeSession {
    private let profile: VAProfile
    private let rateControl: UInt32
    private var sequence: VAEncSequenceParameterBufferH264?
    private var rateControlParameters: VAEncMiscParameterRateControl?
    private var frameRateParameters: VAEncMiscParameterFrameRate?
    private var encoder: OpenH264Encoder?
    /// The source's chroma as two planes: openh264 takes planar input.
    private var scratch: PlaneMemory?

    init(profile: VAProfile, rateControl: UInt32) {
        self.profile = profile
        self.rateControl = rateControl
    }

    func codedBufferID(in buffers: [RenderedBuffer]) throws(VAError) -> VABufferID {
        guard let picture = buffers.last(where: { $0.type == VAEncPictureParameterBufferType }) else { throw .invalidParameter }
        return picture.element(as: VAEncPictureParameterBufferH264.self).coded_buf
    }

    /// One picture checked at vaEndPicture: the encoder settings its parameters ask for.
    struct Prepared {
        let settings: OpenH264Settings
        let intra: Bool
    }

    /// vaEndPicture's part: reads the buffers and refuses what openh264 cannot honour.
    func prepare(_ rendered: [RenderedBuffer], source: Surface) throws(VAError) -> Prepared {
        let buffers = try EncodePictureBuffers(rendered)
        if let s = buffers.sequence { sequence = s }
        if let r = buffers.rateControl { rateControlParameters = r }
        if let f = buffers.frameRate { frameRateParameters = f }
        let picture = buffers.picture, slices = buffers.slices
        guard let sequence, let picture, let firstSlice = slices.first else { throw .invalidParameter }
        let settings = try self.settings(sequence, picture, slices, firstSlice)
        guard source.width >= Int(settings.width), source.height >= Int(settings.height) else { throw .invalidSurface }
        // openh264 makes no non-IDR I pictures on request: an I picture becomes an IDR.
        return Prepared(settings: settings, intra: picture.pic_fields.bits.idr_pic_flag != 0 || slices.allSatisfy { $0.slice_type % 5 == 2 })
    }

    /// The worker's part: codes `source` as prepared.
    func encode(_ prepared: Prepared, source: Surface) throws(VAError) -> [UInt8] {
        let settings = prepared.settings
        if encoder?.adopt(settings) != true { encoder = OpenH264Encoder(settings) }
        guard let encoder else { throw .invalidParameter }
        let width = Int(settings.width), height = Int(settings.height)
        // openh264 reads the surface's luma where it is (it takes a stride and copies its input itself):
        // only the interleaved chroma is split into planes, into scratch kept from picture to picture.
        let chromaStride = (width + 1) / 2, chromaSize = chromaStride * ((height + 1) / 2)
        let scratch = self.scratch.flatMap { $0.size >= 2 * chromaSize ? $0 : nil } ?? PlaneMemory(size: 2 * chromaSize)
        self.scratch = scratch
        let base = scratch.base.assumingMemoryBound(to: UInt8.self)
        let planes = (source.luma, base, base + chromaSize)
        SplitUVPlane(source.chroma, Int32(source.pitch), planes.1, Int32(chromaStride), planes.2, Int32(chromaStride),
                     Int32(chromaStride), Int32((height + 1) / 2))
        guard let stream = encoder.encode(planes: planes, strides: (Int32(source.pitch), Int32(chromaStride), Int32(chromaStride)),
                                          forceIDR: prepared.intra) else {
            throw .encodingError
        }
        return stream
    }

    private func settings(_ seq: VAEncSequenceParameterBufferH264, _ pic: VAEncPictureParameterBufferH264,
                          _ slices: [VAEncSliceParameterBufferH264], _ first: VAEncSliceParameterBufferH264) throws(VAError) -> OpenH264Settings {
        let s = seq.seq_fields.bits, f = pic.pic_fields.bits
        guard s.chroma_format_idc == 1, seq.bit_depth_luma_minus8 == 0, seq.bit_depth_chroma_minus8 == 0 else { throw .unsupportedRTFormat }
        // Things openh264 cannot do: interlace, B slices, more than one reference, weighted prediction,
        // chroma QP offsets, constrained intra prediction, CABAC in Constrained Baseline.
        guard s.frame_mbs_only_flag != 0,
              pic.num_ref_idx_l1_active_minus1 == 0, pic.num_ref_idx_l0_active_minus1 == 0,
              f.weighted_pred_flag == 0, f.weighted_bipred_idc == 0, f.constrained_intra_pred_flag == 0,
              pic.chroma_qp_index_offset == 0, pic.second_chroma_qp_index_offset == 0,
              !(profile == VAProfileH264ConstrainedBaseline && f.entropy_coding_mode_flag != 0) else { throw .invalidParameter }
        for slice in slices {
            let type = slice.slice_type % 5
            guard type == 0 || type == 2,  // P or I
                  slice.num_ref_idx_active_override_flag == 0 || slice.num_ref_idx_l0_active_minus1 == 0 else { throw .invalidParameter }
        }
        // openh264 crops only on the right and bottom, to the width and height it is given.
        var width = Int32(seq.picture_width_in_mbs) * 16, height = Int32(seq.picture_height_in_mbs) * 16
        if seq.frame_cropping_flag != 0 {
            guard seq.frame_crop_left_offset == 0, seq.frame_crop_top_offset == 0 else { throw .invalidParameter }
            width -= 2 * Int32(seq.frame_crop_right_offset)
            height -= 2 * Int32(seq.frame_crop_bottom_offset)
        }
        guard width >= 16, height >= 16 else { throw .invalidParameter }

        let rate: OpenH264Settings.RateControl
        var qpRange: (min: Int32, max: Int32)?
        switch rateControl {
        case UInt32(VA_RC_CQP):
            let qp = Int32(pic.pic_init_qp) + Int32(first.slice_qp_delta)
            guard (0...51).contains(qp) else { throw .invalidParameter }
            rate = .constantQP(qp)
        default:
            let bits = Int32(clamping: rateControlParameters.map { $0.bits_per_second } ?? seq.bits_per_second)
            guard bits > 0 else { throw .invalidParameter }
            if rateControl == UInt32(VA_RC_VBR) {
                let percentage = Int32(rateControlParameters.map { $0.target_percentage } ?? 100)
                let target = percentage > 0 && percentage <= 100 ? Int32(Int64(bits) * Int64(percentage) / 100) : bits
                rate = .bitrate(target: target, peak: bits)
            } else {
                rate = .bitrate(target: bits, peak: bits)
            }
            if let rc = rateControlParameters, rc.min_qp > 0 || rc.max_qp > 0 {
                qpRange = (Int32(rc.min_qp), rc.max_qp > 0 ? Int32(rc.max_qp) : 51)
            }
        }
        return OpenH264Settings(
            width: width, height: height, frameRate: Float(EncodePictureBuffers.framesPerSecond(frameRateParameters, seq)), rateControl: rate,
            profile: profile == VAProfileH264ConstrainedBaseline ? PRO_BASELINE : (profile == VAProfileH264Main ? PRO_MAIN : PRO_HIGH),
            level: Int32(seq.level_idc), cabac: f.entropy_coding_mode_flag != 0,
            deblocking: (Int32(first.disable_deblocking_filter_idc), Int32(first.slice_alpha_c0_offset_div2) * 2, Int32(first.slice_beta_offset_div2) * 2),
            qpRange: qpRange)
    }
}
