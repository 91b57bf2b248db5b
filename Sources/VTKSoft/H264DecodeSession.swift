import CLibVA
import H264Bitstream

/// A decode context's codec state: turns each picture's VA buffers back into an access unit, has
/// libavcodec decode it, and writes the picture into the render target.
final class H264DecodeSession: PictureDecoding {
    private var rebuilder: ParameterSetRebuilder
    private let decoder: LibavcodecDecoder
    private var lastSPS: [UInt8] = []
    /// PPS NAL units sent, by pic_parameter_set_id; cleared when the SPS changes (libavcodec drops
    /// PPSs whose SPS changed).
    private var sentPPS: [Int: [UInt8]] = [:]
    /// num_ref_idx_l0/l1_default_active_minus1 per PPS id, learnt from slices that do not override them.
    private var refDefaults: [Int: (Int, Int)] = [:]
    /// The rebuilt SPS and PPSs as coded, parsed: what the slice headers are checked against.
    private var parameterSets = ParameterSets()
    /// For POC type 1, per PPS id: the type-0 sets sent in their place.
    private var pocRewrites: [Int: PictureOrderCountRewrite] = [:]

    /// Whether field pictures and MBAFF frames are decoded (the persona's ``Persona/interlacedDecode``).
    private let interlaced: Bool

    init?(profile: VAProfile, interlaced: Bool = true) {
        guard let decoder = LibavcodecDecoder() else { return nil }
        self.decoder = decoder
        self.interlaced = interlaced
        rebuilder = ParameterSetRebuilder(profile: profile)
    }

    /// vaEndPicture's part: checks one picture's buffers and builds its access unit; `violations` gets the
    /// parameters that contradict the slice data (see ``ParameterViolation``), also when it then throws.
    func prepare(_ buffers: [RenderedBuffer], for surface: Surface, contextWidth: Int, contextHeight: Int,
                 violations: inout [ParameterViolation]) throws(VAError) -> PreparedAccessUnit {
        let rendered = try RenderedPicture<VAPictureParameterBufferH264, VAIQMatrixBufferH264, VASliceParameterBufferH264>(buffers, headerSize: 1)
        let picture = rendered.picture, matrix = rendered.matrix
        let sliceParameters = rendered.sliceParameters, nalUnits = rendered.nalUnits
        let seq = picture.seq_fields.bits
        // 4:2:0 and 4:0:0 (into a 4:2:0 surface, chroma 128, as libavcodec gives it), 8 bits: what the
        // reported profiles decode.
        guard seq.chroma_format_idc <= 1, picture.bit_depth_luma_minus8 == 0, picture.bit_depth_chroma_minus8 == 0 else {
            throw .unsupportedRTFormat
        }
        if !interlaced && (seq.frame_mbs_only_flag == 0 || picture.pic_fields.bits.field_pic_flag != 0) { throw .unimplemented }
        let width = (Int(picture.picture_width_in_mbs_minus1) + 1) * 16
        let height = (Int(picture.picture_height_in_mbs_minus1) + 1) * 16
        guard width <= max(contextWidth, surface.pitch), height <= surface.allocatedHeight else { throw .invalidParameter }

        var accessUnit: [NALUnit] = []
        // Its slices, and an SPS and PPSs when they change.
        accessUnit.reserveCapacity(nalUnits.count + 2)
        let sps = rebuilder.sequenceParameterSet(picture)
        // POC type 1 goes to libavcodec as type 0, with the client's POCs (see PictureOrderCountRewrite).
        let typeZeroSPS = seq.pic_order_cnt_type == 1 ? PictureOrderCountRewrite.sequenceParameterSet(sps) : nil
        if sps != lastSPS {
            lastSPS = sps
            sentPPS = [:]
            pocRewrites = [:]
            parameterSets = ParameterSets()
            _ = try? parameterSets.store(NALUnit(sps))
            accessUnit.append(typeZeroSPS?.nalUnit() ?? NALUnit(sps))
        }
        var headers: [SliceHeaderPrefix] = []
        headers.reserveCapacity(nalUnits.count)
        for index in nalUnits.indices {
            do { headers.append(try SliceHeaderPrefix(nalUnit: nalUnits[index], picture: picture)) } catch { throw .invalidParameter }
        }
        // The first slice's field is the picture's (CurrPic is checked against it). A client that sends both
        // fields of a frame in one picture gets both written: libavcodec decodes the pair from one packet.
        let structure = headers[0].structure, frameNum = headers[0].frameNum
        let bothFields = structure.isField && headers.contains { $0.structure == structure.complement }
        violations += FieldParameterCheck.picture(picture, structure: structure)
        // By index: a VASliceParameterBufferH264 is 3 KB, which zip and enumerated would copy per slice.
        var lastRebuilt: (id: Int, defaults: (Int, Int), pps: [UInt8])?
        for index in nalUnits.indices {
            let header = headers[index]
            let id = header.pictureParameterSetID
            var defaults = refDefaults[id] ?? (0, 0)
            if !header.overridesRefCounts {
                if header.isP || header.isB { defaults.0 = Int(sliceParameters[index].num_ref_idx_l0_active_minus1) }
                if header.isB { defaults.1 = Int(sliceParameters[index].num_ref_idx_l1_active_minus1) }
            }
            refDefaults[id] = defaults
            // The picture's slices mostly share their PPS: rebuilt once while id and defaults stay the same.
            let pps: [UInt8]
            if let last = lastRebuilt, last.id == id, last.defaults == defaults {
                pps = last.pps
            } else {
                pps = rebuilder.pictureParameterSet(picture, scaling: matrix, id: id, defaults: defaults)
                lastRebuilt = (id, defaults, pps)
            }
            if sentPPS[id] != pps {
                sentPPS[id] = pps
                _ = try? parameterSets.store(NALUnit(pps))
                if let typeZeroSPS, let typeZeroPPS = PictureOrderCountRewrite.pictureParameterSet(pps, sps: typeZeroSPS) {
                    pocRewrites[id] = PictureOrderCountRewrite(sps: typeZeroSPS, pps: typeZeroPPS)
                    accessUnit.append(typeZeroPPS.nalUnit(sps: typeZeroSPS))
                } else {
                    pocRewrites[id] = nil
                    accessUnit.append(NALUnit(pps))
                }
            }
            if let violation = SliceDataOffsetCheck.violation(sliceParameters[index], index: index, nalUnit: nalUnits[index], parameterSets: parameterSets) {
                violations.append(violation)
            }
            violations += FieldParameterCheck.referenceLists(sliceParameters[index], index: index, sliceType: header.sliceType,
                                                             picture: picture, structure: structure)
        }
        for index in nalUnits.indices {
            let unit = NALUnit(bytes: nalUnits[index], offset: 0)
            // A slice the rewrite cannot parse goes as it is: libavcodec conceals or refuses it.
            let rewritten = pocRewrites[headers[index].pictureParameterSetID].flatMap {
                try? $0.slice(unit, coded: parameterSets, current: picture.CurrPic, structure: structure)
            }
            accessUnit.append(rewritten ?? unit)
        }
        return PreparedAccessUnit(nalUnits: accessUnit, width: width, height: height,
                                  structure: bothFields ? .frame : structure, frameNum: frameNum)
    }

    /// The first field libavcodec decoded last, while its second field may still come (worker side).
    private var openField: (structure: PictureStructure, frameNum: Int)?

    /// The worker's part: libavcodec decodes the access unit into `surface`. A field is written into its
    /// rows only; it is the second field of the open one when it has the opposite parity and the same
    /// frame_num and follows it directly (7.4.1.2.4), and then libavcodec decodes it into that picture.
    func decode(_ unit: PreparedAccessUnit, into surface: Surface) throws(VAError) {
        let pairs = unit.structure.isField && openField.map { $0.structure == unit.structure.complement && $0.frameNum == unit.frameNum } == true
        // A frame's luma may go straight into the surface (fields are written row by row into theirs).
        let target = unit.structure == .frame
            ? SurfaceFrameAllocator.Target(surface: surface, width: min(unit.width, surface.pitch), height: min(unit.height, surface.allocatedHeight))
            : nil
        let outcome = decoder.decode(unit.nalUnits, continuesPicture: pairs, target: target) { decoded in
            let copyWidth = min(decoded.width, unit.width, surface.pitch)
            let copyHeight = min(decoded.height, unit.height, surface.allocatedHeight)
            if decoded.planes.0 == surface.luma && unit.structure == .frame {
                unit.structure.writeNV12Chroma(decoded, into: surface, width: copyWidth, height: copyHeight)
            } else {
                surface.releaseFromDecoder()
                unit.structure.writeNV12(decoded, into: surface, width: copyWidth, height: copyHeight)
            }
        }
        openField = outcome.decoded && unit.structure.isField && !pairs ? (unit.structure, unit.frameNum) : nil
        try surface.record(outcome, width: unit.width, height: unit.height)
    }
}
