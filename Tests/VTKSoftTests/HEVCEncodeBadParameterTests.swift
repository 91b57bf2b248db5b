import CLibVA
import Foundation
import Testing
import VTKTestSupport

/// H.265 encode parameters the spec forbids, thrown at vtksoft through the VA API as a broken client would:
/// each gets an error status from vaEndPicture or vaSyncSurface, or is coded and counted as a violation,
/// never a crash; after each the driver still codes a clean IDR and P, and at the end no VA object is left
/// alive. The named cases say which of the two each must be; seeded random field mutations of a clean P picture
/// must only leave the driver whole (a mutation may well give a valid picture).
@Suite("vtksoft H.265 encode: spec-forbidden parameters", .serialized,
       .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct HEVCEncodeBadParameterTests {
    /// The surfaces a breakage may name: reconstructions of earlier pictures and one no picture was coded into.
    struct Surfaces: Sendable {
        let recon: [VASurfaceID]
        let neverEncoded: VASurfaceID
    }

    /// What a breakage must give: an error status (from vaEndPicture, or vaSyncSurface after it), a picture
    /// coded with a violation counted, or (for fields the spec says are absent) a picture coded. The violation
    /// counter is the process's: other suites running meanwhile may add to it, never take from it.
    enum Outcome: Sendable { case refused, violation, clean }

    /// One broken P picture (POC 1, RefPicList0 the IDR's reconstruction) as edits to the clean parameters.
    struct Breakage: CustomStringConvertible, Sendable {
        let name: String
        var sequence: @Sendable (inout VAEncSequenceParameterBufferHEVC) -> Void = { _ in }
        var picture: @Sendable (inout VAEncPictureParameterBufferHEVC, Surfaces) -> Void = { _, _ in }
        var slice: @Sendable (inout VAEncSliceParameterBufferHEVC, Surfaces) -> Void = { _, _ in }
        var outcome: Outcome = .refused
        var description: String { name }
    }

    /// Writes `entries` into a C array of 15 VAPictureHEVC, the rest invalid.
    static func fill<Tuple>(_ tuple: inout Tuple, _ entries: [VAPictureHEVC]) {
        withUnsafeMutableBytes(of: &tuple) { raw in
            for i in 0..<15 {
                var e = VAPictureHEVC()
                if i < entries.count { e = entries[i] } else {
                    e.picture_id = VASurfaceID(VA_INVALID_SURFACE)
                    e.flags = UInt32(VA_PICTURE_HEVC_INVALID)
                }
                raw.storeBytes(of: e, toByteOffset: i * MemoryLayout<VAPictureHEVC>.stride, as: VAPictureHEVC.self)
            }
        }
    }

    static let breakages: [Breakage] = [
        // 7.4.3.2.1: sizes.
        Breakage(name: "CTB 128 (log2_diff_max_min_luma_coding_block_size 4)", sequence: { $0.log2_diff_max_min_luma_coding_block_size = 4 }),
        Breakage(name: "CTB 2^258 (log2_min_luma_coding_block_size_minus3 255)", sequence: { $0.log2_min_luma_coding_block_size_minus3 = 255 }),
        Breakage(name: "CTB log2 6 + 255", sequence: { $0.log2_min_luma_coding_block_size_minus3 = 3; $0.log2_diff_max_min_luma_coding_block_size = 255 }),
        Breakage(name: "picture 60x64, not whole 8x8 coding blocks", sequence: { $0.pic_width_in_luma_samples = 60 }),
        Breakage(name: "picture 0x64", sequence: { $0.pic_width_in_luma_samples = 0 }),
        Breakage(name: "picture larger than the surface", sequence: { $0.pic_width_in_luma_samples = 4096; $0.pic_height_in_luma_samples = 2160 }),
        Breakage(name: "minimum transform 8x8, not below the 8x8 coding blocks", sequence: { $0.log2_min_transform_block_size_minus2 = 1 }),
        Breakage(name: "transform 64x64", sequence: { $0.log2_diff_max_min_transform_block_size = 4 }),
        Breakage(name: "transform hierarchy depth 200", sequence: { $0.max_transform_hierarchy_depth_inter = 200; $0.max_transform_hierarchy_depth_intra = 200 }),
        Breakage(name: "PCM blocks larger than the CTB", sequence: { s in
            s.seq_fields.bits.pcm_enabled_flag = 1
            s.log2_min_pcm_luma_coding_block_size_minus3 = 0
            s.log2_max_pcm_luma_coding_block_size_minus3 = 0xFFFF_FFFF
            s.pcm_sample_bit_depth_luma_minus1 = 7
            s.pcm_sample_bit_depth_chroma_minus1 = 7
        }),
        Breakage(name: "PCM maximum below minimum", sequence: { s in
            s.seq_fields.bits.pcm_enabled_flag = 1
            s.log2_min_pcm_luma_coding_block_size_minus3 = 2
            s.log2_max_pcm_luma_coding_block_size_minus3 = 0
        }),
        Breakage(name: "PCM 12-bit samples in an 8-bit sequence", sequence: { s in
            s.seq_fields.bits.pcm_enabled_flag = 1
            s.pcm_sample_bit_depth_luma_minus1 = 11
        }),
        // Formats.
        Breakage(name: "10-bit sequence on Main and an NV12 surface", sequence: { $0.seq_fields.bits.bit_depth_luma_minus8 = 2; $0.seq_fields.bits.bit_depth_chroma_minus8 = 2 }),
        Breakage(name: "luma and chroma bit depths differ", sequence: { $0.seq_fields.bits.bit_depth_chroma_minus8 = 1 }),
        Breakage(name: "4:2:2 chroma", sequence: { $0.seq_fields.bits.chroma_format_idc = 2 }),
        Breakage(name: "scaling lists the engine does not code", sequence: { $0.seq_fields.bits.scaling_list_enabled_flag = 1 }),
        // 7.4.3.3.1: the PPS.
        Breakage(name: "pic_init_qp 60", picture: { p, _ in p.pic_init_qp = 60 }),
        Breakage(name: "diff_cu_qp_delta_depth 3 with CTB 32 over 8x8 coding blocks", picture: { p, _ in
            p.pic_fields.bits.cu_qp_delta_enabled_flag = 1
            p.diff_cu_qp_delta_depth = 3
        }),
        Breakage(name: "pps_cb_qp_offset -128 and pps_cr_qp_offset 13", picture: { p, _ in p.pps_cb_qp_offset = -128; p.pps_cr_qp_offset = 13 }),
        Breakage(name: "log2_parallel_merge_level 2^255", picture: { p, _ in p.log2_parallel_merge_level_minus2 = 253 }),
        Breakage(name: "num_ref_idx_l0_default_active_minus1 15", picture: { p, _ in p.num_ref_idx_l0_default_active_minus1 = 15 }),
        Breakage(name: "nal_unit_type 63 (not a slice)", picture: { p, _ in p.nal_unit_type = 63 }),
        Breakage(name: "nal_unit_type 22 (reserved IRAP)", picture: { p, _ in p.nal_unit_type = 22 }),
        Breakage(name: "slice_pic_parameter_set_id 64", picture: { p, _ in p.slice_pic_parameter_set_id = 64 }),
        Breakage(name: "tiles the engine does not code", picture: { p, _ in p.pic_fields.bits.tiles_enabled_flag = 1; p.num_tile_columns_minus1 = 18 }),
        Breakage(name: "weighted prediction the engine does not code", picture: { p, _ in p.pic_fields.bits.weighted_pred_flag = 1 }),
        // 7.3.6.3: without weighted_pred_flag the weight table is absent, whatever the buffer holds.
        Breakage(name: "weight tables filled with weighted prediction off", slice: { s, _ in
            s.luma_log2_weight_denom = 200
            s.delta_chroma_log2_weight_denom = -100
            withUnsafeMutableBytes(of: &s.delta_luma_weight_l0) { for i in $0.indices { $0[i] = 0x80 } }
            withUnsafeMutableBytes(of: &s.chroma_offset_l1) { for i in $0.indices { $0[i] = 0x7F } }
        }, outcome: .clean),
        // 7.4.7.1: the slice segment header.
        Breakage(name: "slice_qp_delta to QP 80", slice: { s, _ in s.slice_qp_delta = 50 }),
        Breakage(name: "slice_qp_delta to QP -98", slice: { s, _ in s.slice_qp_delta = -128 }),
        Breakage(name: "slice_cb_qp_offset 12 over pps_cb_qp_offset 12", picture: { p, _ in p.pps_cb_qp_offset = 12 }, slice: { s, _ in s.slice_cb_qp_offset = 12 }),
        Breakage(name: "slice_beta_offset_div2 7 and slice_tc_offset_div2 -100", slice: { s, _ in s.slice_beta_offset_div2 = 7; s.slice_tc_offset_div2 = -100 }),
        Breakage(name: "num_ref_idx_l0_active_minus1 15 with 15 references listed", picture: { p, ids in
            fill(&p.reference_frames, [EncodeTestClient.hevcEntry(ids.recon[0], poc: 0)])
        }, slice: { s, ids in
            s.num_ref_idx_l0_active_minus1 = 15
            fill(&s.ref_pic_list0, Array(repeating: EncodeTestClient.hevcEntry(ids.recon[0], poc: 0), count: 15))
        }),
        Breakage(name: "num_ref_idx_l0_active_minus1 255", slice: { s, _ in s.num_ref_idx_l0_active_minus1 = 255 }),
        Breakage(name: "two references active, one listed", slice: { s, _ in s.num_ref_idx_l0_active_minus1 = 1 }),
        Breakage(name: "B slice with an empty RefPicList1 and num_ref_idx_l1_active_minus1 200", slice: { s, _ in s.slice_type = 0; s.num_ref_idx_l1_active_minus1 = 200 }),
        Breakage(name: "slice_type 3", slice: { s, _ in s.slice_type = 3 }),
        Breakage(name: "P slice in an IDR", picture: { p, _ in p.nal_unit_type = 19; p.pic_fields.bits.idr_pic_flag = 1; p.decoded_curr_pic.pic_order_cnt = 0 }),
        Breakage(name: "max_num_merge_cand 0", slice: { s, _ in s.max_num_merge_cand = 0 }),
        Breakage(name: "max_num_merge_cand 9", slice: { s, _ in s.max_num_merge_cand = 9 }),
        Breakage(name: "slice_segment_address past the picture", slice: { s, _ in s.slice_segment_address = 1000 }),
        Breakage(name: "num_ctu_in_slice 0", slice: { s, _ in s.num_ctu_in_slice = 0 }),
        Breakage(name: "num_ctu_in_slice 2^32 - 1", slice: { s, _ in s.num_ctu_in_slice = .max }),
        Breakage(name: "dependent slice segment the engine does not code", picture: { p, _ in p.pic_fields.bits.dependent_slice_segments_enabled_flag = 1 },
                 slice: { s, _ in s.slice_fields.bits.dependent_slice_segment_flag = 1 }),
        Breakage(name: "collocated_ref_pic_index 7 with one reference", picture: { p, _ in p.collocated_ref_pic_index = 7 }, outcome: .violation),
        // References.
        Breakage(name: "a reference surface no picture was coded into", picture: { p, ids in
            fill(&p.reference_frames, [EncodeTestClient.hevcEntry(ids.neverEncoded, poc: 0)])
        }, slice: { s, ids in fill(&s.ref_pic_list0, [EncodeTestClient.hevcEntry(ids.neverEncoded, poc: 0)]) }, outcome: .violation),
        Breakage(name: "a list entry missing from reference_frames", picture: { p, _ in fill(&p.reference_frames, []) }, outcome: .violation),
        Breakage(name: "a reference id naming no surface", slice: { s, _ in fill(&s.ref_pic_list0, [EncodeTestClient.hevcEntry(0xdead, poc: 0)]) }),
        Breakage(name: "decoded_curr_pic naming no surface", picture: { p, _ in p.decoded_curr_pic.picture_id = 0xbeef }),
        Breakage(name: "coded_buf naming no buffer", picture: { p, _ in p.coded_buf = 0xbeef }),
    ]

    /// A 64x64 Main CQP client, CTB 32 over 8x8 coding blocks, the driver writing the headers.
    final class Client: EncodeTestClient {
        var ids: Surfaces { Surfaces(recon: Array(recon.prefix(2)), neverEncoded: recon[2]) }

        init() throws {
            try super.init(profile: VAProfileHEVCMain, packed: nil)
        }

        func parameters(idr: Bool) -> (VAEncSequenceParameterBufferHEVC, VAEncPictureParameterBufferHEVC, VAEncSliceParameterBufferHEVC) {
            var s = Self.mainSequence(ctbLog2: 5)
            s.seq_fields.bits.sps_temporal_mvp_enabled_flag = 1
            var p = VAEncPictureParameterBufferHEVC()
            p.decoded_curr_pic = EncodeTestClient.hevcEntry(recon[idr ? 0 : 1], poc: idr ? 0 : 1)
            p.decoded_curr_pic.flags = 0
            let list = idr ? [] : [EncodeTestClient.hevcEntry(recon[0], poc: 0)]
            HEVCEncodeBadParameterTests.fill(&p.reference_frames, list)
            p.coded_buf = coded
            p.collocated_ref_pic_index = idr ? 0xFF : 0
            p.pic_init_qp = 30
            p.nal_unit_type = idr ? 19 : 1
            p.pic_fields.bits.idr_pic_flag = idr ? 1 : 0
            p.pic_fields.bits.coding_type = idr ? 1 : 2
            p.pic_fields.bits.reference_pic_flag = 1
            var slice = VAEncSliceParameterBufferHEVC()
            slice.num_ctu_in_slice = 4
            slice.slice_type = idr ? 2 : 1
            slice.max_num_merge_cand = 5
            slice.slice_fields.bits.last_slice_of_pic_flag = 1
            slice.slice_fields.bits.slice_temporal_mvp_enabled_flag = idr ? 0 : 1
            HEVCEncodeBadParameterTests.fill(&slice.ref_pic_list0, list)
            HEVCEncodeBadParameterTests.fill(&slice.ref_pic_list1, [])
            return (s, p, slice)
        }

        /// A clean IDR into recon[0] and a clean P from it into recon[1]: both coded. (Whether they count
        /// a violation cannot be told here: the counter is the process's, and other suites encode meanwhile.)
        func cleanPair(after what: String) throws {
            for idr in [true, false] {
                let (s, p, slice) = parameters(idr: idr)
                let result = try encode(s, p, slice)
                #expect(result.end == VA_STATUS_SUCCESS && result.sync == VA_STATUS_SUCCESS && result.bytes.count > 8,
                        "after \(what): a clean \(idr ? "IDR" : "P") gave \(String(cString: vaErrorStr(result.end)))/\(String(cString: vaErrorStr(result.sync))), \(result.bytes.count) bytes")
            }
        }
    }

    /// The broken P picture of `breakage`; returns its result and whether a violation was counted.
    static func encodeBroken(_ client: Client, _ breakage: Breakage) throws -> (Client.Result, violated: Bool) {
        var (s, p, slice) = client.parameters(idr: false)
        breakage.sequence(&s)
        breakage.picture(&p, client.ids)
        breakage.slice(&slice, client.ids)
        let before = try #require(VTKSoftCounters.encodeViolations)
        let result = try client.encode(s, p, slice)
        return (result, (VTKSoftCounters.encodeViolations ?? 0) > before)
    }

    @Test("Each spec-forbidden H.265 parameter gets an error status or a counted violation; the driver codes clean pictures after")
    func forbiddenParameters() throws {
        let client = try Client()
        try client.cleanPair(after: "nothing")
        for breakage in Self.breakages {
            let (result, violated) = try Self.encodeBroken(client, breakage)
            let statuses = "vaEndPicture \(String(cString: vaErrorStr(result.end))), vaSyncSurface \(String(cString: vaErrorStr(result.sync)))"
            switch breakage.outcome {
            case .refused:
                #expect(result.end != VA_STATUS_SUCCESS || result.sync != VA_STATUS_SUCCESS, "\(breakage): not refused (\(statuses), violation \(violated))")
            case .violation:
                #expect(result.end == VA_STATUS_SUCCESS && result.sync == VA_STATUS_SUCCESS && !result.bytes.isEmpty, "\(breakage): not coded (\(statuses))")
                #expect(violated, "\(breakage): no violation counted")
            case .clean:
                #expect(result.end == VA_STATUS_SUCCESS && result.sync == VA_STATUS_SUCCESS && !result.bytes.isEmpty, "\(breakage): not coded (\(statuses))")
            }
            try client.cleanPair(after: breakage.name)
        }
        #expect(client.close() == 0, "VA objects alive after the forbidden parameters")
    }

    /// Field mutations of a clean P picture: a random byte at a random offset of the sequence, picture or
    /// slice parameters (the fuzz target fuzz-hevcencode does the same without VA, for longer).
    @Test("Seeded random mutations of the H.265 parameters never crash the driver")
    func randomMutations() throws {
        let client = try Client()
        var random = SeededRandom(seed: 29)
        var refused = 0, violated = 0, clean = 0
        for round in 0..<40 {
            var (s, p, slice) = client.parameters(idr: round % 8 == 0)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let value = UInt8.random(in: 0...255, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: withUnsafeMutableBytes(of: &s) { $0[Int.random(in: 0..<$0.count, using: &random)] = value }
                case 1: withUnsafeMutableBytes(of: &p) { $0[Int.random(in: 0..<$0.count, using: &random)] = value }
                default: withUnsafeMutableBytes(of: &slice) { $0[Int.random(in: 0..<$0.count, using: &random)] = value }
                }
            }
            let before = try #require(VTKSoftCounters.encodeViolations)
            let result = try client.encode(s, p, slice)
            if result.end != VA_STATUS_SUCCESS || result.sync != VA_STATUS_SUCCESS { refused += 1 } else if (VTKSoftCounters.encodeViolations ?? 0) > before { violated += 1 } else { clean += 1 }
            try client.cleanPair(after: "random mutation \(round)")
        }
        #expect(refused + violated + clean == 40)
        #expect(client.close() == 0, "VA objects alive after the random mutations (\(refused) refused, \(violated) violations, \(clean) clean)")
    }
}
