import CLibVA

/// The ranges the spec gives the syntax elements an H.265 encode picture's VA parameters stand for, checked
/// at vaEndPicture (after ``HEVCEncodeSession``'s own checks of the format, CTB size and picture size): a value
/// the spec forbids is INVALID_PARAMETER there, so that neither the header writers nor the engine meet it;
/// a collocated_ref_pic_index outside its list, which the driver replaces with 0 as hardware does, is a
/// counted violation.
enum HEVCEncodeParameterCheck {
    static func check(_ seq: VAEncSequenceParameterBufferHEVC, _ pic: VAEncPictureParameterBufferHEVC,
                      _ slices: [VAEncSliceParameterBufferHEVC], clientQP: Bool, violation: (String) -> Void) throws(VAError) {
        try checkSequence(seq)
        try checkPicture(pic, seq)
        for (index, slice) in slices.enumerated() { try checkSlice(slice, index: index, pic, seq, clientQP: clientQP, violation: violation) }
    }

    private static func refuse(_ reason: String) -> VAError { VAError.invalidParameter.because(reason) }

    /// 7.4.3.2.1: transform block sizes and depths, and PCM sizes and bit depths, against the coding blocks.
    static func checkSequence(_ seq: VAEncSequenceParameterBufferHEVC) throws(VAError) {
        let minCbLog2 = Int(seq.log2_min_luma_coding_block_size_minus3) + 3
        let ctbLog2 = minCbLog2 + Int(seq.log2_diff_max_min_luma_coding_block_size)
        let minTbLog2 = Int(seq.log2_min_transform_block_size_minus2) + 2
        let maxTbLog2 = minTbLog2 + Int(seq.log2_diff_max_min_transform_block_size)
        guard minTbLog2 < minCbLog2, maxTbLog2 <= min(ctbLog2, 5) else {
            throw refuse("transform blocks \(1 << min(minTbLog2, 16))...\(1 << min(maxTbLog2, 16)) with coding blocks \(1 << minCbLog2)...\(1 << ctbLog2) (7.4.3.2.1)")
        }
        for (name, depth) in [("inter", seq.max_transform_hierarchy_depth_inter), ("intra", seq.max_transform_hierarchy_depth_intra)]
        where Int(depth) > ctbLog2 - minTbLog2 {
            throw refuse("max_transform_hierarchy_depth_\(name) \(depth) above CtbLog2SizeY - MinTbLog2SizeY = \(ctbLog2 - minTbLog2) (7.4.3.2.1)")
        }
        let f = seq.seq_fields.bits
        if f.pcm_enabled_flag != 0 {
            let minPcm = Int(seq.log2_min_pcm_luma_coding_block_size_minus3) + 3, maxPcm = Int(seq.log2_max_pcm_luma_coding_block_size_minus3) + 3
            guard minPcm >= min(minCbLog2, 5), minPcm <= maxPcm, maxPcm <= min(ctbLog2, 5) else {
                throw refuse("PCM coding blocks log2 \(minPcm)...\(maxPcm) with coding blocks log2 \(minCbLog2)...\(ctbLog2) (7.4.3.2.1)")
            }
            guard seq.pcm_sample_bit_depth_luma_minus1 < f.bit_depth_luma_minus8 + 8, seq.pcm_sample_bit_depth_chroma_minus1 < f.bit_depth_chroma_minus8 + 8 else {
                throw refuse("PCM bit depths \(UInt64(seq.pcm_sample_bit_depth_luma_minus1) + 1)/\(UInt64(seq.pcm_sample_bit_depth_chroma_minus1) + 1) above the bit depth (7.4.3.2.1)")
            }
        }
    }

    /// 7.4.3.3.1, 7.4.2.2: the PPS the picture parameters stand for, and a VCL NAL unit type that is not reserved.
    static func checkPicture(_ pic: VAEncPictureParameterBufferHEVC, _ seq: VAEncSequenceParameterBufferHEVC) throws(VAError) {
        let qpBdOffset = 6 * Int(seq.seq_fields.bits.bit_depth_luma_minus8)
        let ctbLog2 = Int(seq.log2_min_luma_coding_block_size_minus3) + 3 + Int(seq.log2_diff_max_min_luma_coding_block_size)
        guard (0...9).contains(pic.nal_unit_type) || (16...21).contains(pic.nal_unit_type) else {
            throw refuse("nal_unit_type \(pic.nal_unit_type) is not a coded slice type (Table 7-1)")
        }
        guard pic.slice_pic_parameter_set_id <= 63 else { throw refuse("slice_pic_parameter_set_id \(pic.slice_pic_parameter_set_id) (7.4.3.3.1: 0...63)") }
        guard Int(pic.pic_init_qp) <= 51 else { throw refuse("pic_init_qp \(pic.pic_init_qp) (7.4.3.3.1: \(-qpBdOffset)...51)") }
        if pic.pic_fields.bits.cu_qp_delta_enabled_flag != 0, pic.diff_cu_qp_delta_depth > seq.log2_diff_max_min_luma_coding_block_size {
            throw refuse("diff_cu_qp_delta_depth \(pic.diff_cu_qp_delta_depth) above log2_diff_max_min_luma_coding_block_size \(seq.log2_diff_max_min_luma_coding_block_size) (7.4.3.3.1)")
        }
        for (name, offset) in [("pps_cb_qp_offset", pic.pps_cb_qp_offset), ("pps_cr_qp_offset", pic.pps_cr_qp_offset)] where !(-12...12).contains(offset) {
            throw refuse("\(name) \(offset) (7.4.3.3.1: -12...12)")
        }
        guard Int(pic.log2_parallel_merge_level_minus2) + 2 <= ctbLog2 else {
            throw refuse("log2_parallel_merge_level_minus2 \(pic.log2_parallel_merge_level_minus2) above CtbLog2SizeY - 2 (7.4.3.3.1)")
        }
        guard pic.num_ref_idx_l0_default_active_minus1 <= 14, pic.num_ref_idx_l1_default_active_minus1 <= 14 else {
            throw refuse("num_ref_idx_l0/l1_default_active_minus1 \(pic.num_ref_idx_l0_default_active_minus1)/\(pic.num_ref_idx_l1_default_active_minus1) (7.4.3.3.1: 0...14)")
        }
    }

    /// 7.4.7.1: the slice segment header the slice parameters stand for.
    static func checkSlice(_ slice: VAEncSliceParameterBufferHEVC, index: Int, _ pic: VAEncPictureParameterBufferHEVC,
                           _ seq: VAEncSequenceParameterBufferHEVC, clientQP: Bool, violation: (String) -> Void) throws(VAError) {
        let qpBdOffset = 6 * Int(seq.seq_fields.bits.bit_depth_luma_minus8)
        if (16...23).contains(pic.nal_unit_type), slice.slice_type != 2 {
            throw refuse("slice \(index) has slice_type \(slice.slice_type) in an IRAP picture (nal_unit_type \(pic.nal_unit_type); 7.4.7.1: I only)")
        }
        let sliceQP = Int(pic.pic_init_qp) + Int(slice.slice_qp_delta)
        if clientQP, !(-qpBdOffset...51).contains(sliceQP) {
            throw refuse("slice \(index): SliceQpY \(sliceQP) (pic_init_qp \(pic.pic_init_qp) + slice_qp_delta \(slice.slice_qp_delta); 7.4.7.1: \(-qpBdOffset)...51)")
        }
        for (name, offset, total) in [("slice_cb_qp_offset", slice.slice_cb_qp_offset, pic.pps_cb_qp_offset), ("slice_cr_qp_offset", slice.slice_cr_qp_offset, pic.pps_cr_qp_offset)]
        where !(-12...12).contains(offset) || !(-12...12).contains(Int(offset) + Int(total)) {
            throw refuse("slice \(index): \(name) \(offset) (7.4.7.1: -12...12, and with the PPS's)")
        }
        for (name, offset) in [("slice_beta_offset_div2", slice.slice_beta_offset_div2), ("slice_tc_offset_div2", slice.slice_tc_offset_div2)] where !(-6...6).contains(offset) {
            throw refuse("slice \(index): \(name) \(offset) (7.4.7.1: -6...6)")
        }
        guard slice.slice_type != 2 else { return }
        guard slice.num_ref_idx_l0_active_minus1 <= 14, slice.slice_type != 0 || slice.num_ref_idx_l1_active_minus1 <= 14 else {
            throw refuse("slice \(index): num_ref_idx_l0/l1_active_minus1 \(slice.num_ref_idx_l0_active_minus1)/\(slice.num_ref_idx_l1_active_minus1) (7.4.7.1: 0...14)")
        }
        guard (1...5).contains(slice.max_num_merge_cand) else {
            throw refuse("slice \(index): max_num_merge_cand \(slice.max_num_merge_cand) (7.4.7.1: 1...5)")
        }
        // 7.4.7.1: collocated_ref_idx within the list it names; VA's 0xFF says "none" (the driver picks 0).
        let tmvp = seq.seq_fields.bits.sps_temporal_mvp_enabled_flag != 0 && slice.slice_fields.bits.slice_temporal_mvp_enabled_flag != 0
        let fromL0 = slice.slice_type == 1 || slice.slice_fields.bits.collocated_from_l0_flag != 0
        let count = Int(fromL0 ? slice.num_ref_idx_l0_active_minus1 : slice.num_ref_idx_l1_active_minus1) + 1
        if tmvp, pic.collocated_ref_pic_index != 0xFF, Int(pic.collocated_ref_pic_index) >= count {
            violation("slice \(index): collocated_ref_pic_index \(pic.collocated_ref_pic_index) outside RefPicList\(fromL0 ? 0 : 1)'s \(count) entries; coded with 0")
        }
    }
}
