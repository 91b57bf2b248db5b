import CLibVA
import Foundation
import H265Bitstream
import Testing
import VTKTestSupport

/// vtksoft's H.265 encode entrypoint driven in-process: what hardware refuses gets a VA status from
/// vaEndPicture (a list naming no surface, slices that do not tile the picture, a CTB size the persona does not
/// code), and what it codes anyway is coded and counted as a violation (a list entry missing from
/// reference_frames, an IDR with a POC other than 0, a packed SPS that disagrees with the sequence parameters).
@Suite("vtksoft H.265 encode: VA side", .serialized,
       .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct HEVCEncodeViolationTests {
    /// A 64x64 Main CQP client, CTB 32, that sends no packed headers unless asked (the driver writes them).
    final class Client: EncodeTestClient {
        /// `packed`: VA_ENC_PACKED_HEADER_* the config declares (SEQUENCE: the client writes VPS/SPS/PPS, not the driver).
        init(persona: String = "vtksoft", entrypoint: VAEntrypoint = VAEntrypointEncSlice, packed: Int32 = VA_ENC_PACKED_HEADER_NONE) throws {
            try super.init(profile: VAProfileHEVCMain, entrypoint: entrypoint, packed: packed) { display in
                try #require(VTKSoftCounters.setPersona(persona, in: display))
            }
        }

        static var invalid: VAPictureHEVC {
            var p = VAPictureHEVC()
            p.picture_id = VASurfaceID(VA_INVALID_SURFACE)
            p.flags = UInt32(VA_PICTURE_HEVC_INVALID)
            return p
        }

        struct Picture {
            var idr = true
            var poc: Int32 = 0
            var recon = 0
            var list0: [VAPictureHEVC] = []
            var referenceFrames: [VAPictureHEVC] = []
            var ctbLog2 = 5
            /// CTUs the one slice covers (nil: the whole picture).
            var ctus: Int?
            /// A packed SPS, changed from what the parameters say by this edit (nil: none packed).
            var editPackedSPS: ((inout H265SequenceParameterSet) -> Void)?
            /// sample_adaptive_offset_enabled_flag, and slice_sao_luma_flag and slice_sao_chroma_flag with it.
            var sao = false
        }

        func sequence(_ p: Picture) -> VAEncSequenceParameterBufferHEVC {
            var s = Self.mainSequence(ctbLog2: p.ctbLog2)
            s.seq_fields.bits.sample_adaptive_offset_enabled_flag = p.sao ? 1 : 0
            return s
        }

        /// Encodes the gradient as `p` says; returns the vaEndPicture status and the coded bytes.
        func encode(_ p: Picture) throws -> (VAStatus, [UInt8]) {
            let sequence = sequence(p)
            var picture = VAEncPictureParameterBufferHEVC()
            picture.decoded_curr_pic = Self.hevcEntry(recon[p.recon], poc: p.poc)
            picture.decoded_curr_pic.flags = 0
            withUnsafeMutableBytes(of: &picture.reference_frames) { raw in
                for i in 0..<15 {
                    raw.storeBytes(of: i < p.referenceFrames.count ? p.referenceFrames[i] : Self.invalid,
                                   toByteOffset: i * MemoryLayout<VAPictureHEVC>.stride, as: VAPictureHEVC.self)
                }
            }
            picture.coded_buf = coded
            picture.collocated_ref_pic_index = 0xFF
            picture.pic_init_qp = 30
            picture.nal_unit_type = p.idr ? 19 : 1
            picture.pic_fields.bits.idr_pic_flag = p.idr ? 1 : 0
            picture.pic_fields.bits.coding_type = p.list0.isEmpty ? 1 : 2
            picture.pic_fields.bits.reference_pic_flag = 1
            var slice = VAEncSliceParameterBufferHEVC()
            let ctb = 1 << p.ctbLog2
            slice.num_ctu_in_slice = UInt32(p.ctus ?? ((Self.size + ctb - 1) / ctb) * ((Self.size + ctb - 1) / ctb))
            slice.slice_type = p.list0.isEmpty ? 2 : 1
            slice.num_ref_idx_l0_active_minus1 = UInt8(max(p.list0.count - 1, 0))
            slice.max_num_merge_cand = 5
            slice.slice_fields.bits.last_slice_of_pic_flag = 1
            slice.slice_fields.bits.slice_sao_luma_flag = p.sao ? 1 : 0
            slice.slice_fields.bits.slice_sao_chroma_flag = p.sao ? 1 : 0
            withUnsafeMutableBytes(of: &slice.ref_pic_list0) { raw in
                for i in 0..<15 {
                    raw.storeBytes(of: i < p.list0.count ? p.list0[i] : Self.invalid, toByteOffset: i * MemoryLayout<VAPictureHEVC>.stride, as: VAPictureHEVC.self)
                }
            }
            withUnsafeMutableBytes(of: &slice.ref_pic_list1) { raw in
                for i in 0..<15 { raw.storeBytes(of: Self.invalid, toByteOffset: i * MemoryLayout<VAPictureHEVC>.stride, as: VAPictureHEVC.self) }
            }
            var buffers = [try base.createBuffer(context, VAEncSequenceParameterBufferType, sequence),
                           try base.createBuffer(context, VAEncPictureParameterBufferType, picture)]
            if let edit = p.editPackedSPS {
                // The SPS the parameters describe (8-bit POC LSBs as the driver derives), then the test's edit.
                var sps = H265SequenceParameterSet()
                sps.profileTierLevel.generalProfileIdc = 1
                sps.profileTierLevel.generalLevelIdc = 30
                sps.picWidthInLumaSamples = Self.size
                sps.picHeightInLumaSamples = Self.size
                sps.log2MaxPicOrderCntLsbMinus4 = 4
                sps.maxDecPicBufferingMinus1 = [2]
                sps.maxNumReorderPics = [0]
                sps.maxLatencyIncreasePlus1 = [0]
                sps.log2DiffMaxMinLumaCodingBlockSize = p.ctbLog2 - 3
                sps.log2DiffMaxMinLumaTransformBlockSize = 3
                sps.maxTransformHierarchyDepthInter = 2
                sps.maxTransformHierarchyDepthIntra = 2
                edit(&sps)
                var data = [0, 0, 0, 1] + sps.nalUnit()
                var parameter = VAEncPackedHeaderParameterBuffer()
                parameter.type = UInt32(VAEncPackedHeaderSequence.rawValue)
                parameter.bit_length = UInt32(data.count * 8)
                parameter.has_emulation_bytes = 1
                var dataID = VABufferID(VA_INVALID_ID)
                try base.check(vaCreateBuffer(display, context, VAEncPackedHeaderDataBufferType, UInt32(data.count), 1, &data, &dataID), "packed data")
                buffers += [try base.createBuffer(context, VAEncPackedHeaderParameterBufferType, parameter), dataID]
            }
            buffers.append(try base.createBuffer(context, VAEncSliceParameterBufferType, slice))
            let status = try endPicture(buffers)
            guard status == VA_STATUS_SUCCESS else { return (status, []) }
            return (status, try base.codedBytes(coded))
        }

        /// An IDR into recon[0], then a P from it into recon[1]: the clean baseline.
        func cleanPair() throws -> [UInt8] {
            let (s0, idr) = try encode(Picture())
            try #require(s0 == VA_STATUS_SUCCESS)
            var p = Picture(idr: false, poc: 1, recon: 1)
            p.list0 = [Self.hevcEntry(recon[0], poc: 0)]
            p.referenceFrames = p.list0
            let (s1, inter) = try encode(p)
            try #require(s1 == VA_STATUS_SUCCESS)
            return idr + inter
        }
    }

    @Test("A clean IDR + P: coded, with the driver's VPS/SPS/PPS, and no violation")
    func clean() throws {
        let client = try Client()
        let before = try #require(VTKSoftCounters.encodeViolations)
        let bytes = try client.cleanPair()
        #expect(VTKSoftCounters.encodeViolations == before)
        // VPS (32), SPS (33), PPS (34) NAL unit headers after start codes, then slices.
        let types = Set(zip(bytes, bytes.dropFirst(3)).enumerated().compactMap { i, pair -> UInt8? in
            i + 4 < bytes.count && bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 ? (bytes[i + 3] >> 1) & 0x3F : nil
        })
        #expect(types.isSuperset(of: [32, 33, 34, 19, 1]), "NAL unit types \(types.sorted())")
        // The driver's own headers (derived from the parameters) decode in FFmpeg: two frames, no error line.
        guard ProcessRunner.which("ffmpeg") != nil else { return }
        let file = TestPaths.scratch.appendingPathComponent("hevc-driver-headers-\(UUID().uuidString).h265")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        let decode = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", file.path, "-f", "framemd5", "-"])
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText.prefix(400))")
        #expect(decode.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 2)
    }

    @Test("A list entry missing from reference_frames, an IDR with POC 1 and a disagreeing packed SPS are coded and counted")
    func violationsAreCounted() throws {
        let client = try Client(packed: VA_ENC_PACKED_HEADER_SEQUENCE)
        _ = try client.cleanPair()
        func expectViolation(_ what: String, _ picture: Client.Picture) throws {
            let before = try #require(VTKSoftCounters.encodeViolations)
            let (s, bytes) = try client.encode(picture)
            #expect(s == VA_STATUS_SUCCESS, "\(what): \(String(cString: vaErrorStr(s)))")
            #expect(!bytes.isEmpty, "\(what): coded anyway")
            #expect((VTKSoftCounters.encodeViolations ?? 0) > before, "\(what): counted")
        }
        var notInFrames = Client.Picture(idr: false, poc: 2, recon: 2)
        notInFrames.list0 = [Client.hevcEntry(client.recon[1], poc: 1)]
        try expectViolation("list entry missing from reference_frames", notInFrames)
        try expectViolation("IDR with POC 1", Client.Picture(idr: true, poc: 1))
        var packed = Client.Picture()
        packed.editPackedSPS = { $0.ampEnabledFlag = true }
        try expectViolation("packed SPS with AMP the parameters leave off", packed)
        _ = try client.cleanPair()
    }

    @Test("Refused as hardware refuses: a list naming no surface, slices short of the picture, CTB 32 on iHD's VDEnc")
    func refusals() throws {
        let client = try Client()
        _ = try client.cleanPair()
        var bogus = Client.Picture(idr: false, poc: 2, recon: 2)
        bogus.list0 = [Client.hevcEntry(0xdead, poc: 1)]
        #expect(try client.encode(bogus).0 == VA_STATUS_ERROR_INVALID_SURFACE)
        #expect(try client.encode(Client.Picture(ctus: 1)).0 == VA_STATUS_ERROR_INVALID_PARAMETER)
        _ = try client.cleanPair()

        let lp = try Client(persona: "ihd-gen12", entrypoint: VAEntrypointEncSliceLP)
        #expect(try lp.encode(Client.Picture(ctbLog2: 5)).0 == VA_STATUS_ERROR_INVALID_PARAMETER)
        #expect(try lp.encode(Client.Picture(ctbLog2: 6)).0 == VA_STATUS_SUCCESS)
    }
}
