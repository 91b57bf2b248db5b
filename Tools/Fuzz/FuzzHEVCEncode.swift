// libFuzzer target: vtksoft's H.265 encode path without VA, as vaEndPicture and the worker drive it
// (HEVCEncodeSession.prepare, then encode: the checks, the header derivation, the engine adapter and the
// engine) on 16x16 pictures. A clean IDR, P and B are mutated by the input: its first bytes choose the profile,
// CTB size, rate control and persona limits; the rest is laid out as EncodeParameterFuzzing.swift says (pokes
// into the parameters, a packed header). A VA error or a counted violation is fine; a crash, a trap or a
// success without a coded slice is a finding.
// fuzz-inside: Sources/VTKSoft/HEVCEncodeSession.swift Sources/VTKSoft/HEVCSurfacePictureConversion.swift Tools/Fuzz/EncodeParameterFuzzing.swift
// fuzz-inside: Sources/VTKSoft/Personas/VTKSoftPersona.swift Sources/VTKSoft/Personas/IHD.swift Sources/VTKSoft/Personas/I965.swift
// fuzz-inside: Sources/VTKSoft/Personas/RadeonSI.swift Sources/VTKSoft/Personas/NVIDIA.swift
// fuzz-inside: Sources/VTKSoft/SurfacePresentation.swift Sources/VTKSoft/SurfacePictureConversion.swift

import CLibVA

private func entry(_ id: VASurfaceID, poc: Int32) -> VAPictureHEVC {
    var p = VAPictureHEVC()
    p.picture_id = id
    p.pic_order_cnt = poc
    p.flags = UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE)
    return p
}

extension VAPictureHEVC: EncodeFuzzEntry {
    static let invalidFlag = UInt32(VA_PICTURE_HEVC_INVALID)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEVCEncode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = EncodeFuzzInput(data, size)
    let setup = input.setup
    let tenBit = setup & 1 != 0
    let ctbLog2 = setup & 2 != 0 ? 5 : 4
    var limits = HEVCEncodeSession.Limits()
    limits.futureReferences = setup & 0x40 == 0
    if setup & 0x80 != 0 { limits.ctbLog2Sizes = 5...5 }
    let session = HEVCEncodeSession(profile: tenBit ? VAProfileHEVCMain10 : VAProfileHEVCMain, rateControl: input.rateControl,
                                    packedHeaders: EncodeFuzzInput.packedHeaders, policy: input.policy, limits: limits)
    let side = 16
    let surfaces = encodeFuzzSurfaces(side: side, format: tenBit ? .p010 : .nv12)

    // The clean sequence: 16x16 Main (or Main 10), CTB 16 or 32, 8x8 coding blocks, 4x4...16 transforms.
    var sequence = VAEncSequenceParameterBufferHEVC()
    sequence.general_profile_idc = tenBit ? 2 : 1
    sequence.general_level_idc = 30
    sequence.intra_period = 30
    sequence.intra_idr_period = 30
    sequence.ip_period = 2
    sequence.bits_per_second = 200_000
    sequence.pic_width_in_luma_samples = UInt16(side)
    sequence.pic_height_in_luma_samples = UInt16(side)
    sequence.seq_fields.bits.chroma_format_idc = 1
    sequence.seq_fields.bits.bit_depth_luma_minus8 = tenBit ? 2 : 0
    sequence.seq_fields.bits.bit_depth_chroma_minus8 = tenBit ? 2 : 0
    sequence.seq_fields.bits.sps_temporal_mvp_enabled_flag = 1
    sequence.seq_fields.bits.sample_adaptive_offset_enabled_flag = 1
    sequence.log2_min_luma_coding_block_size_minus3 = 0
    sequence.log2_diff_max_min_luma_coding_block_size = UInt8(ctbLog2 - 3)
    sequence.log2_min_transform_block_size_minus2 = 0
    sequence.log2_diff_max_min_transform_block_size = 2
    sequence.max_transform_hierarchy_depth_inter = 2
    sequence.max_transform_hierarchy_depth_intra = 2

    // IDR into surface 1, P from it into 2, B from both into 3 (POC 0, 2, 1).
    let plan: [(poc: Int32, target: VASurfaceID, list0: [VAPictureHEVC], list1: [VAPictureHEVC])] = [
        (0, 1, [], []),
        (2, 2, [entry(1, poc: 0)], []),
        (1, 3, [entry(1, poc: 0)], [entry(2, poc: 2)]),
    ]
    let pictures = plan.enumerated().map { index, step in
        var picture = VAEncPictureParameterBufferHEVC()
        picture.decoded_curr_pic = entry(step.target, poc: step.poc)
        picture.decoded_curr_pic.flags = 0
        encodeFuzzFill(&picture.reference_frames, step.list0 + step.list1)
        picture.collocated_ref_pic_index = index == 0 ? 0xFF : 0
        picture.pic_init_qp = 30
        picture.nal_unit_type = index == 0 ? 19 : 1
        picture.pic_fields.bits.idr_pic_flag = index == 0 ? 1 : 0
        picture.pic_fields.bits.coding_type = index == 0 ? 1 : UInt32(index + 1)
        picture.pic_fields.bits.reference_pic_flag = index < 2 ? 1 : 0
        var slice = VAEncSliceParameterBufferHEVC()
        let ctbsPerSide = (side + (1 << ctbLog2) - 1) >> ctbLog2
        slice.num_ctu_in_slice = UInt32(ctbsPerSide * ctbsPerSide)
        slice.slice_type = [2, 1, 0][index]
        slice.max_num_merge_cand = 5
        slice.slice_fields.bits.last_slice_of_pic_flag = 1
        slice.slice_fields.bits.slice_temporal_mvp_enabled_flag = 1
        slice.slice_fields.bits.slice_sao_luma_flag = 1
        slice.slice_fields.bits.slice_sao_chroma_flag = 1
        encodeFuzzFill(&slice.ref_pic_list0, step.list0)
        encodeFuzzFill(&slice.ref_pic_list1, step.list1)
        return EncodeFuzzPicture(sequence: sequence, picture: picture, slice: slice)
    }
    encodeFuzzRun(session, input, pictures: pictures, source: surfaces[0], surfaces: surfaces)
    return 0
}
