import CLibVA
import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// vtksoft survives a broken client: parameters that contradict the slice data, references to surfaces
/// never decoded, garbage slice data and coded buffers too small get a VA error code or a garbage picture,
/// never a crash; after each, the driver still decodes a good picture and the live count returns to 0.
@Suite("A broken VA client", .serialized, .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct BrokenClientTests {
    /// One way of breaking a decode call: edits to the picture and slice parameters and the slice data.
    struct Breakage: CustomStringConvertible, Sendable {
        let name: String
        var picture: @Sendable (inout VAPictureParameterBufferH264, _ other: VASurfaceID) -> Void = { _, _ in }
        var slice: @Sendable (inout VASliceParameterBufferH264, _ other: VASurfaceID) -> Void = { _, _ in }
        var data: @Sendable (inout [UInt8]) -> Void = { _ in }
        /// Status codes vaEndPicture may give; success means a (possibly garbage) picture.
        var allowed: [Int32] = [VA_STATUS_SUCCESS, VA_STATUS_ERROR_INVALID_PARAMETER, VA_STATUS_ERROR_DECODING_ERROR]
        var description: String { name }
    }

    static let breakages: [Breakage] = [
        Breakage(name: "picture wider than the surface", picture: { p, _ in p.picture_width_in_mbs_minus1 = 200 },
                 allowed: [VA_STATUS_ERROR_INVALID_PARAMETER]),
        Breakage(name: "picture taller than the surface", picture: { p, _ in p.picture_height_in_mbs_minus1 = 0xFFFF },
                 allowed: [VA_STATUS_ERROR_INVALID_PARAMETER]),
        Breakage(name: "picture smaller than the slice data says", picture: { p, _ in p.picture_width_in_mbs_minus1 = 0; p.picture_height_in_mbs_minus1 = 0 }),
        Breakage(name: "slice_data_bit_offset 0", slice: { s, _ in s.slice_data_bit_offset = 0 }),
        Breakage(name: "slice_data_bit_offset past the slice", slice: { s, _ in s.slice_data_bit_offset = 0xFFFF }),
        Breakage(name: "slice_data_size past the buffer", slice: { s, _ in s.slice_data_size += 1000 },
                 allowed: [VA_STATUS_ERROR_INVALID_PARAMETER]),
        Breakage(name: "slice_data_offset past the buffer", slice: { s, _ in s.slice_data_offset = 0xFFFF_FF00 },
                 allowed: [VA_STATUS_ERROR_INVALID_PARAMETER]),
        Breakage(name: "partial slice flag", slice: { s, _ in s.slice_data_flag = UInt32(VA_SLICE_DATA_FLAG_BEGIN) },
                 allowed: [VA_STATUS_ERROR_INVALID_PARAMETER]),
        Breakage(name: "num_ref_idx too large, P slice type over I data",
                 slice: { s, _ in s.slice_type = 0; s.num_ref_idx_l0_active_minus1 = 31; s.num_ref_idx_l1_active_minus1 = 255 }),
        Breakage(name: "num_ref_frames 255", picture: { p, _ in p.num_ref_frames = 255 }),
        Breakage(name: "4:4:4 chroma", picture: { p, _ in p.seq_fields.bits.chroma_format_idc = 3 },
                 allowed: [VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT, VA_STATUS_ERROR_INVALID_PARAMETER]),
        Breakage(name: "10-bit depth", picture: { p, _ in p.bit_depth_luma_minus8 = 2 },
                 allowed: [VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT, VA_STATUS_ERROR_INVALID_PARAMETER]),
        Breakage(name: "absurd frame_num and POC sizes", picture: { p, _ in
            p.seq_fields.bits.log2_max_frame_num_minus4 = 15
            p.seq_fields.bits.pic_order_cnt_type = 3
            p.seq_fields.bits.log2_max_pic_order_cnt_lsb_minus4 = 15
        }),
        Breakage(name: "CABAC flag over CAVLC data, 8x8 transform, weighted prediction", picture: { p, _ in
            p.pic_fields.bits.entropy_coding_mode_flag = 1
            p.pic_fields.bits.transform_8x8_mode_flag = 1
            p.pic_fields.bits.weighted_pred_flag = 1
            p.pic_fields.bits.weighted_bipred_idc = 3
            p.num_slice_groups_minus1 = 7
            p.pic_init_qp_minus26 = 100
            p.chroma_qp_index_offset = -100
        }),
        Breakage(name: "references to a surface never decoded and to a bogus id", picture: { p, other in
            withUnsafeMutableBytes(of: &p.ReferenceFrames) { raw in
                var ref = VAPictureH264()
                ref.picture_id = other
                ref.flags = UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE)
                raw.storeBytes(of: ref, toByteOffset: 0, as: VAPictureH264.self)
                ref.picture_id = 0xdead
                raw.storeBytes(of: ref, toByteOffset: MemoryLayout<VAPictureH264>.stride, as: VAPictureH264.self)
            }
        }, slice: { s, other in
            s.slice_type = 0
            withUnsafeMutableBytes(of: &s.RefPicList0) { raw in
                var ref = VAPictureH264()
                ref.picture_id = other
                raw.storeBytes(of: ref, toByteOffset: 0, as: VAPictureH264.self)
            }
        }),
        Breakage(name: "slice data cut to its header", data: { d in d = Array(d.prefix(4)) }),
        Breakage(name: "slice data of random bytes", data: { d in
            var random = SeededRandom(seed: 9)
            for i in 1..<d.count { d[i] = UInt8.random(in: 0...255, using: &random) }
        }),
        Breakage(name: "slice data claiming another PPS and an SPS NAL type", data: { d in d[0] = 0x67; if d.count > 2 { d[1] = 0xFF; d[2] = 0xFF } }),
        Breakage(name: "slice data of zeros", data: { d in d = [UInt8](repeating: 0, count: d.count) }),
    ]

    /// Decodes `stream`'s IDR into a new surface with `breakage` applied; returns vaEndPicture's status.
    static func decode(_ client: VTKSoftVAClient, _ stream: [UInt8], _ breakage: Breakage) throws -> VAStatus {
        let display = client.display
        let units = AnnexBScanner.nalUnits(in: stream)
        let sps = try SequenceParameterSet(nalUnit: try #require(units.first { $0.type == .sequenceParameterSet }))
        let idr = try #require(units.first { $0.type == .idrSlice })
        var config = VAConfigID(VA_INVALID_ID)
        try client.check(vaCreateConfig(display, VAProfileH264ConstrainedBaseline, VAEntrypointVLD, nil, 0, &config), "vaCreateConfig")
        defer { vaDestroyConfig(display, config) }
        var targets = [try client.createSurface(), try client.createSurface()]
        defer { vaDestroySurfaces(display, &targets, 2) }
        var context = VAContextID(VA_INVALID_ID)
        try client.check(vaCreateContext(display, config, Int32(VTKSoftVAClient.size), Int32(VTKSoftVAClient.size), VA_PROGRESSIVE,
                                         &targets, 2, &context), "vaCreateContext")
        defer { vaDestroyContext(display, context) }

        var picture = VTKSoftVAClient.intraPictureParameters(targets[0])
        picture.picture_width_in_mbs_minus1 = UInt16(sps.picWidthInMbsMinus1)
        picture.picture_height_in_mbs_minus1 = UInt16(sps.frameHeightInMbs - 1)
        picture.num_ref_frames = UInt8(sps.maxNumRefFrames)
        picture.seq_fields.bits.chroma_format_idc = 1
        picture.seq_fields.bits.frame_mbs_only_flag = 1
        picture.seq_fields.bits.log2_max_frame_num_minus4 = UInt32(sps.log2MaxFrameNumMinus4)
        picture.seq_fields.bits.pic_order_cnt_type = UInt32(sps.picOrderCntType)
        picture.seq_fields.bits.log2_max_pic_order_cnt_lsb_minus4 = UInt32(sps.log2MaxPicOrderCntLsbMinus4)
        picture.pic_fields.bits.reference_pic_flag = 1
        var slice = VASliceParameterBufferH264()
        var data = Array(idr.bytes)
        breakage.picture(&picture, targets[1])
        breakage.data(&data)
        slice.slice_data_size = UInt32(data.count)
        slice.slice_data_offset = 0
        slice.slice_data_flag = UInt32(VA_SLICE_DATA_FLAG_ALL)
        slice.slice_type = 2
        breakage.slice(&slice, targets[1])

        var dataBuffer = VABufferID(VA_INVALID_ID)
        try client.check(vaCreateBuffer(display, context, VASliceDataBufferType, UInt32(data.count), 1, &data, &dataBuffer), "slice data")
        var buffers = [try client.createBuffer(context, VAPictureParameterBufferType, picture),
                       try client.createBuffer(context, VASliceParameterBufferType, slice), dataBuffer]
        defer { for b in buffers { vaDestroyBuffer(display, b) } }
        try client.check(vaBeginPicture(display, context, targets[0]), "vaBeginPicture")
        try client.check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
        let status = vaEndPicture(display, context)
        // Whatever vaEndPicture said, the surface can be synced and read; sync reports concealed damage as
        // DECODING_ERROR (as iHD), the details in vaQuerySurfaceError.
        let sync = vaSyncSurface(display, targets[0])
        #expect(sync == VA_STATUS_SUCCESS || sync == VA_STATUS_ERROR_DECODING_ERROR)
        _ = try client.luma(targets[0])
        return status
    }

    @Test("Decode parameters that contradict the slice data give a VA error or a garbage picture, never a crash",
          arguments: breakages)
    func brokenDecode(_ breakage: Breakage) throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let client = VTKSoftVAClient(display: owner.display)
        let stream = try client.encodeOnePicture()
        let status = try Self.decode(client, stream, breakage)
        #expect(breakage.allowed.contains(status), "\(breakage): vaEndPicture gave \(String(cString: vaErrorStr(status)))")
        // The driver is still usable, and nothing is left alive.
        let luma = try client.decodeOnePicture(stream)
        #expect(VTKSoftVAClient.error(luma) < 3, "a good picture after \(breakage) decodes right")
        #expect(VTKSoftCounters.live(in: owner.display) == 0, "VA objects alive after \(breakage)")
        owner.terminate()
    }

    /// Found while coding, after vaEndPicture returned: as on i965, the segment says so and is empty.
    @Test("A coded buffer too small for the picture: vaEndPicture and vaSyncSurface succeed, the segment is empty with the overflow status")
    func codedBufferTooSmall() throws {
        let client = try EncodeTestClient(profile: VAProfileH264ConstrainedBaseline, packed: nil,
                                          attributes: [VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420))],
                                          reconstructions: 0, codedBytes: 16)
        let (sequence, picture, slice) = VTKSoftVAClient.idrParameters(source: client.source, coded: client.coded, qp: 10)
        #expect(try client.endPicture([try client.base.createBuffer(client.context, VAEncSequenceParameterBufferType, sequence),
                                       try client.base.createBuffer(client.context, VAEncPictureParameterBufferType, picture),
                                       try client.base.createBuffer(client.context, VAEncSliceParameterBufferType, slice)]) == VA_STATUS_SUCCESS)
        #expect(vaSyncSurface(client.display, client.source) == VA_STATUS_SUCCESS)
        var pointer: UnsafeMutableRawPointer?
        #expect(vaMapBuffer(client.display, client.coded, &pointer) == VA_STATUS_SUCCESS)
        if let segment = pointer?.assumingMemoryBound(to: VACodedBufferSegment.self).pointee {
            #expect(segment.size == 0)
            #expect(segment.status & UInt32(VA_CODED_BUF_STATUS_SLICE_OVERFLOW_MASK) != 0)
        }
        vaUnmapBuffer(client.display, client.coded)
        try Self.expectStillUsable(client)
    }

    /// After its objects are destroyed, the client's display still encodes a picture, and nothing is left alive.
    static func expectStillUsable(_ client: EncodeTestClient) throws {
        client.destroyObjects()
        #expect(try client.base.encodeOnePicture().starts(with: [0, 0, 0, 1, 0x67]))
        #expect(client.close() == 0)
    }
}
