import CLibVA
import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// A field picture sent by a client whose VA parameters contradict its slice headers: vtksoft decodes what
/// the slices say (the field's own rows of the surface, the other field's rows untouched) and counts each
/// contradiction as a parameter violation (field_pic_flag, CurrPic's field flag); a field sent twice with
/// the same parity is two unpaired fields, decoded without a crash. The field is the IDR top field that
/// starts freh4.264 (intra, so it needs no references).
@Suite("Field parameters against the slice headers", .serialized,
       .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct FieldParameterCheckTests {
    struct FirstField {
        let sps: SequenceParameterSet
        let pps: PictureParameterSet
        let slices: [(unit: NALUnit, header: SliceHeader)]
    }

    /// The first `count` pictures of freh4.264: its IDR top field, then the P bottom field that pairs with it.
    static func fields(_ count: Int = 1) throws -> [FirstField] {
        let stream = try #require(ConformanceStream.interlaced.first { $0.file == "freh4.264" })
        var sets = ParameterSets()
        var pictures: [[(unit: NALUnit, header: SliceHeader)]] = []
        for unit in AnnexBScanner.nalUnits(in: [UInt8](try Data(contentsOf: stream.url))) {
            if unit.type == .sequenceParameterSet || unit.type == .pictureParameterSet { try sets.store(unit) }
            guard unit.type == .idrSlice || unit.type == .nonIDRSlice else { continue }
            let header = try SliceHeader(nalUnit: unit, parameterSets: sets)
            if header.firstMbInSlice == 0 || pictures.isEmpty {
                if pictures.count == count { break }
                pictures.append([])
            }
            pictures[pictures.count - 1].append((unit, header))
        }
        let first = try #require(pictures.first?.first)
        try #require(first.header.fieldPicFlag && !first.header.bottomFieldFlag && first.header.idrPicFlag, "freh4 no longer starts with an IDR top field")
        return try pictures.map { slices in
            let pps = try #require(sets.pps[slices[0].header.picParameterSetId])
            return FirstField(sps: try #require(sets.sps[pps.seqParameterSetId]), pps: pps, slices: slices)
        }
    }

    static func firstField() throws -> FirstField { try fields(1)[0] }

    /// VA parameters of the field as FFmpeg would send them, then `edit`ed.
    static func parameters(_ field: FirstField, target: VASurfaceID) -> VAPictureParameterBufferH264 {
        let sps = field.sps, pps = field.pps
        var p = VTKSoftVAClient.intraPictureParameters(target)
        p.CurrPic.flags |= UInt32(VA_PICTURE_H264_TOP_FIELD)
        p.picture_width_in_mbs_minus1 = UInt16(sps.picWidthInMbsMinus1)
        p.picture_height_in_mbs_minus1 = UInt16(sps.frameHeightInMbs - 1)
        p.num_ref_frames = UInt8(sps.maxNumRefFrames)
        p.seq_fields.bits.chroma_format_idc = UInt32(sps.chromaFormatIdc)
        p.seq_fields.bits.frame_mbs_only_flag = sps.frameMbsOnlyFlag ? 1 : 0
        p.seq_fields.bits.mb_adaptive_frame_field_flag = sps.mbAdaptiveFrameFieldFlag ? 1 : 0
        p.seq_fields.bits.direct_8x8_inference_flag = sps.direct8x8InferenceFlag ? 1 : 0
        p.seq_fields.bits.log2_max_frame_num_minus4 = UInt32(sps.log2MaxFrameNumMinus4)
        p.seq_fields.bits.pic_order_cnt_type = UInt32(sps.picOrderCntType)
        p.seq_fields.bits.log2_max_pic_order_cnt_lsb_minus4 = UInt32(sps.log2MaxPicOrderCntLsbMinus4)
        p.seq_fields.bits.delta_pic_order_always_zero_flag = sps.deltaPicOrderAlwaysZeroFlag ? 1 : 0
        p.pic_init_qp_minus26 = Int8(pps.picInitQpMinus26)
        p.pic_init_qs_minus26 = Int8(pps.picInitQsMinus26)
        p.chroma_qp_index_offset = Int8(pps.chromaQpIndexOffset)
        p.second_chroma_qp_index_offset = Int8(pps.secondChromaQpIndexOffset)
        p.pic_fields.bits.entropy_coding_mode_flag = pps.entropyCodingModeFlag ? 1 : 0
        p.pic_fields.bits.weighted_pred_flag = pps.weightedPredFlag ? 1 : 0
        p.pic_fields.bits.weighted_bipred_idc = UInt32(pps.weightedBipredIdc)
        p.pic_fields.bits.transform_8x8_mode_flag = pps.transform8x8ModeFlag ? 1 : 0
        p.pic_fields.bits.field_pic_flag = 1
        p.pic_fields.bits.constrained_intra_pred_flag = pps.constrainedIntraPredFlag ? 1 : 0
        p.pic_fields.bits.pic_order_present_flag = pps.bottomFieldPicOrderInFramePresentFlag ? 1 : 0
        p.pic_fields.bits.deblocking_filter_control_present_flag = pps.deblockingFilterControlPresentFlag ? 1 : 0
        p.pic_fields.bits.redundant_pic_cnt_present_flag = pps.redundantPicCntPresentFlag ? 1 : 0
        p.pic_fields.bits.reference_pic_flag = 1
        p.frame_num = UInt16(field.slices[0].header.frameNum)
        return p
    }

    /// Renders the field into `target` with picture parameters `picture`; returns vaEndPicture's status.
    static func render(_ field: FirstField, picture: VAPictureParameterBufferH264, context: VAContextID, target: VASurfaceID,
                       client: VTKSoftVAClient, references: [VAPictureH264] = []) throws -> VAStatus {
        var data: [UInt8] = []
        var slices: [VASliceParameterBufferH264] = []
        for (unit, header) in field.slices {
            var s = VASliceParameterBufferH264()
            s.slice_data_size = UInt32(unit.bytes.count)
            s.slice_data_offset = UInt32(data.count)
            s.slice_data_flag = UInt32(VA_SLICE_DATA_FLAG_ALL)
            s.slice_data_bit_offset = UInt16(header.sliceDataPosition.vaBitOffset)
            s.first_mb_in_slice = UInt16(header.firstMbInSlice)
            s.slice_type = UInt8(header.sliceTypeRaw % 5)
            s.slice_qp_delta = Int8(header.sliceQpDelta)
            s.disable_deblocking_filter_idc = UInt8(header.disableDeblockingFilterIdc)
            s.slice_alpha_c0_offset_div2 = Int8(header.sliceAlphaC0OffsetDiv2)
            s.slice_beta_offset_div2 = Int8(header.sliceBetaOffsetDiv2)
            s.num_ref_idx_l0_active_minus1 = UInt8(header.numRefIdxL0ActiveMinus1)
            withUnsafeMutableBytes(of: &s.RefPicList0) { raw in
                for i in 0..<32 {
                    var entry = VAPictureH264()
                    entry.picture_id = VASurfaceID(VA_INVALID_ID)
                    entry.flags = UInt32(VA_PICTURE_H264_INVALID)
                    if i < references.count { entry = references[i] }
                    raw.storeBytes(of: entry, toByteOffset: i * MemoryLayout<VAPictureH264>.stride, as: VAPictureH264.self)
                }
            }
            data += unit.bytes
            slices.append(s)
        }
        let display = client.display
        var sliceBuffer = VABufferID(VA_INVALID_ID), dataBuffer = VABufferID(VA_INVALID_ID)
        try client.check(vaCreateBuffer(display, context, VASliceParameterBufferType, UInt32(MemoryLayout<VASliceParameterBufferH264>.size),
                                        UInt32(slices.count), &slices, &sliceBuffer), "slice parameters")
        try client.check(vaCreateBuffer(display, context, VASliceDataBufferType, UInt32(data.count), 1, &data, &dataBuffer), "slice data")
        var buffers = [try client.createBuffer(context, VAPictureParameterBufferType, picture), sliceBuffer, dataBuffer]
        defer { for b in buffers { vaDestroyBuffer(display, b) } }
        try client.check(vaBeginPicture(display, context, target), "vaBeginPicture")
        try client.check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
        return vaEndPicture(display, context)
    }

    @Test("Contradicting field parameters are violations; the slices decide which rows are written",
          .enabled(if: !ConformanceStream.interlaced.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func contradictions() throws {
        let field = try Self.firstField()
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        defer { owner.terminate() }
        let client = VTKSoftVAClient(display: owner.display)
        let width = field.sps.codedWidth, height = field.sps.codedHeight
        var config = VAConfigID(VA_INVALID_ID), context = VAContextID(VA_INVALID_ID)
        try client.check(vaCreateConfig(owner.display, VAProfileH264High, VAEntrypointVLD, nil, 0, &config), "vaCreateConfig")
        defer { vaDestroyConfig(owner.display, config) }
        var surfaces = try (0..<4).map { _ in try client.createSurface(width: width, height: height) }
        defer { vaDestroySurfaces(owner.display, &surfaces, Int32(surfaces.count)) }
        try client.check(vaCreateContext(owner.display, config, Int32(width), Int32(height), VA_PROGRESSIVE, &surfaces, Int32(surfaces.count), &context),
                         "vaCreateContext")
        defer { vaDestroyContext(owner.display, context) }
        func violations() -> Int? { VTKSoftCounters.violations(in: owner.display) }
        let size = VTKSoftVAClient.size
        func rows(_ luma: [UInt8], odd: Bool) -> [UInt8] {
            stride(from: odd ? 1 : 0, to: size, by: 2).flatMap { luma[$0 * size..<($0 + 1) * size] }
        }

        // The field as it is: no violation; its even rows are written, the odd ones keep what they held.
        let before = try client.luma(surfaces[0], sync: false)
        #expect(try Self.render(field, picture: Self.parameters(field, target: surfaces[0]), context: context, target: surfaces[0], client: client)
                == VA_STATUS_SUCCESS)
        let after = try client.luma(surfaces[0])
        #expect(violations() == 0)
        #expect(rows(after, odd: true) == rows(before, odd: true), "a top field wrote bottom-field rows")
        #expect(rows(after, odd: false) != rows(before, odd: false), "the top field's rows were not written")

        // CurrPic says bottom field: one violation; still the top rows are written, as the slices say.
        var wrongParity = Self.parameters(field, target: surfaces[1])
        wrongParity.CurrPic.flags = (wrongParity.CurrPic.flags & ~UInt32(VA_PICTURE_H264_TOP_FIELD)) | UInt32(VA_PICTURE_H264_BOTTOM_FIELD)
        #expect(try Self.render(field, picture: wrongParity, context: context, target: surfaces[1], client: client) == VA_STATUS_SUCCESS)
        #expect(rows(try client.luma(surfaces[1]), odd: false) == rows(after, odd: false))
        #expect(violations() == 1)

        // field_pic_flag 0 over a field's slices: one more.
        var frameFlag = Self.parameters(field, target: surfaces[2])
        frameFlag.pic_fields.bits.field_pic_flag = 0
        #expect(try Self.render(field, picture: frameFlag, context: context, target: surfaces[2], client: client) == VA_STATUS_SUCCESS)
        _ = try client.luma(surfaces[2])
        #expect(violations() == 2)

        // The same top field twice into one surface: two unpaired fields, each decoded, no crash.
        for _ in 0..<2 {
            #expect(try Self.render(field, picture: Self.parameters(field, target: surfaces[3]), context: context, target: surfaces[3], client: client)
                    == VA_STATUS_SUCCESS)
        }
        #expect(rows(try client.luma(surfaces[3]), odd: false) == rows(after, odd: false))
        #expect(violations() == 2)
    }

    @Test("A second field's RefPicList0 against ReferenceFrames: the first field as FFmpeg names it is right; a field ReferenceFrames does not mark, or a frame entry, is a violation",
          .enabled(if: !ConformanceStream.interlaced.isEmpty, "\(TestPaths.sharedMissingMessage)"))
    func referenceFields() throws {
        let pair = try Self.fields(2)
        let second = pair[1]
        try #require(second.slices[0].header.fieldPicFlag && second.slices[0].header.bottomFieldFlag && second.slices[0].header.sliceType == .p,
                     "freh4's second picture is no longer a P bottom field")
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        defer { owner.terminate() }
        let client = VTKSoftVAClient(display: owner.display)
        let width = second.sps.codedWidth, height = second.sps.codedHeight
        var config = VAConfigID(VA_INVALID_ID), context = VAContextID(VA_INVALID_ID)
        try client.check(vaCreateConfig(owner.display, VAProfileH264High, VAEntrypointVLD, nil, 0, &config), "vaCreateConfig")
        defer { vaDestroyConfig(owner.display, config) }
        var surfaces = try (0..<2).map { _ in try client.createSurface(width: width, height: height) }
        defer { vaDestroySurfaces(owner.display, &surfaces, Int32(surfaces.count)) }
        try client.check(vaCreateContext(owner.display, config, Int32(width), Int32(height), VA_PROGRESSIVE, &surfaces, Int32(surfaces.count), &context),
                         "vaCreateContext")
        defer { vaDestroyContext(owner.display, context) }
        func violations() -> Int? { VTKSoftCounters.violations(in: owner.display) }
        let target = surfaces[0]
        #expect(try Self.render(pair[0], picture: Self.parameters(pair[0], target: target), context: context, target: target, client: client)
                == VA_STATUS_SUCCESS)
        _ = try client.luma(target)

        // The bottom field into the same surface, as FFmpeg sends it: ReferenceFrames holds the surface
        // with its top field (the only reference field so far), and RefPicList0[0] names that top field.
        func bottomParameters(referenceFrames: [VAPictureH264]) -> VAPictureParameterBufferH264 {
            var p = Self.parameters(second, target: target)
            p.CurrPic.flags = UInt32(VA_PICTURE_H264_BOTTOM_FIELD | VA_PICTURE_H264_SHORT_TERM_REFERENCE)
            p.frame_num = UInt16(second.slices[0].header.frameNum)
            withUnsafeMutableBytes(of: &p.ReferenceFrames) { raw in
                for (i, entry) in referenceFrames.enumerated() {
                    raw.storeBytes(of: entry, toByteOffset: i * MemoryLayout<VAPictureH264>.stride, as: VAPictureH264.self)
                }
            }
            return p
        }
        func field(_ flag: Int32) -> VAPictureH264 {
            var p = VAPictureH264()
            p.picture_id = target
            p.flags = UInt32(flag | VA_PICTURE_H264_SHORT_TERM_REFERENCE)
            return p
        }
        let topReference = field(VA_PICTURE_H264_TOP_FIELD)
        let refs = Array(repeating: topReference, count: Int(second.slices[0].header.numRefIdxL0ActiveMinus1) + 1)
        let perSlice = second.slices.count
        #expect(try Self.render(second, picture: bottomParameters(referenceFrames: [topReference]), context: context, target: target,
                                client: client, references: refs) == VA_STATUS_SUCCESS)
        _ = try client.luma(target)
        #expect(violations() == 0, "the first field as FFmpeg names it")

        // RefPicList0 names the bottom field, which ReferenceFrames does not hold as a reference: one violation per entry.
        let wrongField = Array(repeating: field(VA_PICTURE_H264_BOTTOM_FIELD), count: refs.count)
        #expect(try Self.render(second, picture: bottomParameters(referenceFrames: [topReference]), context: context, target: surfaces[1],
                                client: client, references: wrongField) == VA_STATUS_SUCCESS)
        _ = try client.luma(surfaces[1])
        #expect(violations() == refs.count * perSlice, "a field ReferenceFrames does not mark")

        // RefPicList0 names a frame (no field flag) in a field picture: one more per entry.
        var frameEntry = topReference
        frameEntry.flags = UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE)
        #expect(try Self.render(second, picture: bottomParameters(referenceFrames: [topReference]), context: context, target: surfaces[1],
                                client: client, references: Array(repeating: frameEntry, count: refs.count)) == VA_STATUS_SUCCESS)
        _ = try client.luma(surfaces[1])
        #expect(violations() == 2 * refs.count * perSlice, "a frame in a field's list")
    }
}
