// libFuzzer target: vtksoft's H.264 encode path without VA, as vaEndPicture and the worker drive it
// (NativeEncodeSession.prepare, then encode: the checks, the header derivation and the native engine) on
// 32x32 pictures. A clean IDR, P and B are mutated by the input: its first byte chooses the profile, rate
// control and persona policy; the rest is laid out as EncodeParameterFuzzing.swift says (pokes into the
// parameters, a packed header). A VA error or a counted violation is fine; a crash, a trap or a success
// without a coded slice is a finding.
// fuzz-inside: Sources/VTKSoft/NativeEncodeSession.swift Sources/VTKSoft/SurfacePictureConversion.swift Tools/Fuzz/EncodeParameterFuzzing.swift
// fuzz-inside: Sources/VTKSoft/Personas/VTKSoftPersona.swift Sources/VTKSoft/Personas/IHD.swift Sources/VTKSoft/Personas/I965.swift
// fuzz-inside: Sources/VTKSoft/Personas/RadeonSI.swift Sources/VTKSoft/Personas/NVIDIA.swift
// fuzz-inside: Sources/VTKSoft/SurfacePresentation.swift Sources/VTKSoft/HEVCSurfacePictureConversion.swift

import CLibVA

private func entry(_ id: VASurfaceID, poc: Int32, frameIdx: UInt32) -> VAPictureH264 {
    var p = VAPictureH264()
    p.picture_id = id
    p.frame_idx = frameIdx
    p.flags = UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE)
    p.TopFieldOrderCnt = poc
    p.BottomFieldOrderCnt = poc
    return p
}

extension VAPictureH264: EncodeFuzzEntry {
    static let invalidFlag = UInt32(VA_PICTURE_H264_INVALID)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzH264Encode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = EncodeFuzzInput(data, size)
    let profile = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High, VAProfileH264High][Int(input.setup) & 3]
    let session = NativeEncodeSession(profile: profile, rateControl: input.rateControl, packedHeaders: EncodeFuzzInput.packedHeaders, policy: input.policy)
    let side = 32
    let surfaces = encodeFuzzSurfaces(side: side)

    var sequence = VAEncSequenceParameterBufferH264()
    sequence.level_idc = 30
    sequence.intra_period = 30
    sequence.intra_idr_period = 30
    sequence.ip_period = 2
    sequence.bits_per_second = 200_000
    sequence.max_num_ref_frames = 2
    sequence.picture_width_in_mbs = UInt16(side / 16)
    sequence.picture_height_in_mbs = UInt16(side / 16)
    sequence.seq_fields.bits.chroma_format_idc = 1
    sequence.seq_fields.bits.frame_mbs_only_flag = 1
    sequence.seq_fields.bits.direct_8x8_inference_flag = 1

    // IDR into surface 1, P from it into 2, B from both into 3 (POC 0, 4, 2; frame_num 0, 1, 2).
    let plan: [(poc: Int32, target: VASurfaceID, list0: [VAPictureH264], list1: [VAPictureH264])] = [
        (0, 1, [], []),
        (4, 2, [entry(1, poc: 0, frameIdx: 0)], []),
        (2, 3, [entry(1, poc: 0, frameIdx: 0)], [entry(2, poc: 4, frameIdx: 1)]),
    ]
    let pictures = plan.enumerated().map { index, step in
        var picture = VAEncPictureParameterBufferH264()
        picture.CurrPic = entry(step.target, poc: step.poc, frameIdx: UInt32(index))
        encodeFuzzFill(&picture.ReferenceFrames, step.list0 + step.list1)
        picture.frame_num = UInt16(index)
        picture.pic_init_qp = 30
        picture.pic_fields.bits.idr_pic_flag = index == 0 ? 1 : 0
        picture.pic_fields.bits.reference_pic_flag = index < 2 ? 1 : 0
        picture.pic_fields.bits.entropy_coding_mode_flag = profile == VAProfileH264ConstrainedBaseline ? 0 : 1
        picture.pic_fields.bits.transform_8x8_mode_flag = profile == VAProfileH264High ? 1 : 0
        picture.pic_fields.bits.deblocking_filter_control_present_flag = 1
        var slice = VAEncSliceParameterBufferH264()
        slice.num_macroblocks = UInt32((side / 16) * (side / 16))
        slice.slice_type = [2, 0, 1][index]
        slice.pic_order_cnt_lsb = UInt16(step.poc)
        slice.num_ref_idx_active_override_flag = 1
        encodeFuzzFill(&slice.RefPicList0, step.list0)
        encodeFuzzFill(&slice.RefPicList1, step.list1)
        return EncodeFuzzPicture(sequence: sequence, picture: picture, slice: slice)
    }
    encodeFuzzRun(session, input, pictures: pictures, source: surfaces[0], surfaces: surfaces)
    return 0
}
