import CLibVA
import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// vtksoft's native encoder, driven in-process: packed slice headers, reconstructions kept on surfaces,
/// and the bad calls a hardware encoder codes anyway (counted violations) or refuses (VA status).
@Suite("vtksoft native encoder: VA side", .serialized,
       .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct NativeEncodeTests {
    /// A 64x64 High CAVLC CQP client that packs its slice headers (the driver writes SPS and PPS).
    final class Client: EncodeTestClient {
        static let mbs = (size / 16) * (size / 16)

        init() throws {
            try super.init(profile: VAProfileH264High, entrypoint: VAEntrypointEncSlice, packed: VA_ENC_PACKED_HEADER_SLICE) { display in
                try #require(VTKSoftCounters.setEncoder("native", in: display))
            }
        }

        /// The SPS and PPS the driver derives from ``parameters(…)`` (to pack slice headers against).
        static var parameterSets: (SequenceParameterSet, PictureParameterSet) {
            var sps = SequenceParameterSet()
            sps.profileIdc = 100
            sps.levelIdc = 30
            sps.maxNumRefFrames = 2
            sps.picWidthInMbsMinus1 = size / 16 - 1
            sps.picHeightInMapUnitsMinus1 = size / 16 - 1
            var pps = PictureParameterSet()
            pps.deblockingFilterControlPresentFlag = true
            return (sps, pps)
        }

        static func entry(_ surface: VASurfaceID, poc: Int32, frameIdx: UInt32 = 0) -> VAPictureH264 {
            var p = VAPictureH264()
            p.picture_id = surface
            p.frame_idx = frameIdx
            p.flags = UInt32(VA_PICTURE_H264_SHORT_TERM_REFERENCE)
            p.TopFieldOrderCnt = poc
            p.BottomFieldOrderCnt = poc
            return p
        }

        static var invalid: VAPictureH264 {
            var p = VAPictureH264()
            p.picture_id = VASurfaceID(VA_INVALID_ID)
            p.flags = UInt32(VA_PICTURE_H264_INVALID)
            return p
        }

        struct Picture {
            var idr = true
            var frameNum = 0
            var poc = 0
            var idrPicId = 0
            var recon = 0
            var list0: [VAPictureH264] = []
            var referenceFrames: [VAPictureH264] = []
            /// Changes the packed slice header away from the parameters.
            var editPackedHeader: (inout SliceHeader) -> Void = { _ in }
            var packedBitLengthExtra = 0
            /// PPS weighted_pred_flag (explicit weights in P slices), the same in every picture of a stream.
            var weightedPred = false
            /// The P slice's pred_weight_table with ``weightedPred``: VA's one flag per list and component is the
            /// first entry's.
            var weights = PredWeightTable()
        }

        /// Encodes the gradient as `p` says; returns the vaEndPicture status and the coded bytes.
        func encode(_ p: Picture, coded codedID: VABufferID? = nil) throws -> (VAStatus, [UInt8]) {
            let codedID = codedID ?? coded
            var sequence = VAEncSequenceParameterBufferH264()
            sequence.level_idc = 30
            sequence.intra_period = 30
            sequence.intra_idr_period = 30
            sequence.ip_period = 1
            sequence.max_num_ref_frames = 2
            sequence.picture_width_in_mbs = UInt16(Self.size / 16)
            sequence.picture_height_in_mbs = UInt16(Self.size / 16)
            sequence.seq_fields.bits.chroma_format_idc = 1
            sequence.seq_fields.bits.frame_mbs_only_flag = 1
            sequence.seq_fields.bits.direct_8x8_inference_flag = 1
            var picture = VAEncPictureParameterBufferH264()
            picture.CurrPic = Self.entry(recon[p.recon], poc: Int32(p.poc))
            withUnsafeMutableBytes(of: &picture.ReferenceFrames) { raw in
                for i in 0..<16 {
                    let e = i < p.referenceFrames.count ? p.referenceFrames[i] : Self.invalid
                    raw.storeBytes(of: e, toByteOffset: i * MemoryLayout<VAPictureH264>.stride, as: VAPictureH264.self)
                }
            }
            picture.coded_buf = codedID
            picture.frame_num = UInt16(p.frameNum)
            picture.pic_init_qp = 26
            picture.pic_fields.bits.idr_pic_flag = p.idr ? 1 : 0
            picture.pic_fields.bits.reference_pic_flag = 1
            picture.pic_fields.bits.deblocking_filter_control_present_flag = 1
            var slice = VAEncSliceParameterBufferH264()
            slice.num_macroblocks = UInt32(Self.mbs)
            slice.slice_type = p.list0.isEmpty ? 2 : 0
            slice.idr_pic_id = UInt16(p.idrPicId)
            slice.pic_order_cnt_lsb = UInt16(p.poc)
            slice.num_ref_idx_active_override_flag = 1
            slice.num_ref_idx_l0_active_minus1 = UInt8(max(p.list0.count - 1, 0))
            withUnsafeMutableBytes(of: &slice.RefPicList0) { raw in
                for i in 0..<32 {
                    let e = i < p.list0.count ? p.list0[i] : Self.invalid
                    raw.storeBytes(of: e, toByteOffset: i * MemoryLayout<VAPictureH264>.stride, as: VAPictureH264.self)
                }
            }
            withUnsafeMutableBytes(of: &slice.RefPicList1) { raw in
                for i in 0..<32 { raw.storeBytes(of: Self.invalid, toByteOffset: i * MemoryLayout<VAPictureH264>.stride, as: VAPictureH264.self) }
            }
            var (sps, pps) = Self.parameterSets
            if p.weightedPred {
                picture.pic_fields.bits.weighted_pred_flag = 1
                pps.weightedPredFlag = true
                if !p.list0.isEmpty { Self.fill(&slice, p.weights) }
            }

            // The packed slice header: what the parameters say, then the test's edit.
            var header = SliceHeader()
            header.nalUnitType = p.idr ? .idrSlice : .nonIDRSlice
            header.nalRefIdc = p.idr ? 3 : 2
            header.sliceTypeRaw = Int(slice.slice_type)
            header.frameNum = p.frameNum % sps.maxFrameNum
            header.idrPicId = p.idrPicId
            header.picOrderCntLsb = p.poc % sps.maxPicOrderCntLsb
            header.numRefIdxActiveOverrideFlag = !p.list0.isEmpty
            header.numRefIdxL0ActiveMinus1 = Int(slice.num_ref_idx_l0_active_minus1)
            header.decRefPicMarking = DecRefPicMarking()
            if p.weightedPred && !p.list0.isEmpty { header.predWeightTable = p.weights }
            p.editPackedHeader(&header)
            var w = BitWriter()
            header.write(&w, sps: sps, pps: pps)
            let bitLength = w.bitCount
            w.alignWithZeros()
            let packedBytes = [0, 0, 0, 1] + [w.bytes[0]] + EmulationPrevention.insert(Array(w.bytes.dropFirst()))
            var packedParameter = VAEncPackedHeaderParameterBuffer()
            packedParameter.type = UInt32(VAEncPackedHeaderSlice.rawValue)
            packedParameter.bit_length = UInt32(32 + bitLength + p.packedBitLengthExtra)
            packedParameter.has_emulation_bytes = 1

            var dataID = VABufferID(VA_INVALID_ID)
            var data = packedBytes
            try base.check(vaCreateBuffer(display, context, VAEncPackedHeaderDataBufferType, UInt32(data.count), 1, &data, &dataID), "packed data")
            let status = try endPicture([try base.createBuffer(context, VAEncSequenceParameterBufferType, sequence),
                                         try base.createBuffer(context, VAEncPictureParameterBufferType, picture),
                                         try base.createBuffer(context, VAEncPackedHeaderParameterBufferType, packedParameter), dataID,
                                         try base.createBuffer(context, VAEncSliceParameterBufferType, slice)])
            guard status == VA_STATUS_SUCCESS else { return (status, []) }
            return (status, try base.codedBytes(codedID))
        }

        /// The slice's pred_weight_table fields (list 0) from `t`.
        static func fill(_ slice: inout VAEncSliceParameterBufferH264, _ t: PredWeightTable) {
            slice.luma_log2_weight_denom = UInt8(t.lumaLog2WeightDenom)
            slice.chroma_log2_weight_denom = UInt8(t.chromaLog2WeightDenom)
            slice.luma_weight_l0_flag = t.l0.first?.lumaWeightFlag == true ? 1 : 0
            slice.chroma_weight_l0_flag = t.l0.first?.chromaWeightFlag == true ? 1 : 0
            withUnsafeMutableBytes(of: &slice.luma_weight_l0) { w in
                withUnsafeMutableBytes(of: &slice.luma_offset_l0) { o in
                    for (i, e) in t.l0.enumerated() {
                        w.storeBytes(of: Int16(e.lumaWeight), toByteOffset: 2 * i, as: Int16.self)
                        o.storeBytes(of: Int16(e.lumaOffset), toByteOffset: 2 * i, as: Int16.self)
                    }
                }
            }
            withUnsafeMutableBytes(of: &slice.chroma_weight_l0) { w in
                withUnsafeMutableBytes(of: &slice.chroma_offset_l0) { o in
                    for (i, e) in t.l0.enumerated() {
                        for j in 0..<2 {
                            w.storeBytes(of: Int16(e.chromaWeight[j]), toByteOffset: 4 * i + 2 * j, as: Int16.self)
                            o.storeBytes(of: Int16(e.chromaOffset[j]), toByteOffset: 4 * i + 2 * j, as: Int16.self)
                        }
                    }
                }
            }
        }

        /// An IDR into recon[0], then a P from it into recon[1]: the clean baseline.
        func cleanPair() throws -> [UInt8] {
            let (s0, idr) = try encode(Picture())
            try #require(s0 == VA_STATUS_SUCCESS)
            var p = Picture(idr: false, frameNum: 1, poc: 2, recon: 1)
            p.list0 = [Self.entry(recon[0], poc: 0)]
            p.referenceFrames = p.list0
            let (s1, inter) = try encode(p)
            try #require(s1 == VA_STATUS_SUCCESS)
            return idr + inter
        }
    }

    func status(_ s: VAStatus) -> String { String(cString: vaErrorStr(s)) }

    /// The luma planes of FFmpeg's software decode of `stream`, picture by picture.
    static func ffmpegLuma(_ stream: [UInt8], size: Int) throws -> [[UInt8]] {
        let input = TestPaths.scratch.appendingPathComponent("weighted-\(UUID().uuidString).264")
        let output = TestPaths.scratch.appendingPathComponent("weighted-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: input); try? FileManager.default.removeItem(at: output) }
        try Data(stream).write(to: input)
        let r = try ProcessRunner.run("ffmpeg", ["-v", "error", "-i", input.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", output.path])
        #expect(r.status == 0 && r.stderrText.isEmpty, "FFmpeg: \(r.stderrText)")
        let bytes = [UInt8](try Data(contentsOf: output)), frame = size * size * 3 / 2
        return stride(from: 0, to: bytes.count - frame + 1, by: frame).map { Array(bytes[$0..<($0 + size * size)]) }
    }

    @Test("The native engine is advertised: packed headers, L0 4 / L1 1, CQP CBR VBR, several slices")
    func advertises() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        try #require(VTKSoftCounters.setEncoder("native", in: owner.display))
        var attributes = [VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: 0), VAConfigAttrib(type: VAConfigAttribEncMaxRefFrames, value: 0),
                          VAConfigAttrib(type: VAConfigAttribRateControl, value: 0), VAConfigAttrib(type: VAConfigAttribEncMaxSlices, value: 0)]
        #expect(vaGetConfigAttributes(owner.display, VAProfileH264High, VAEntrypointEncSlice, &attributes, 4) == VA_STATUS_SUCCESS)
        #expect(attributes[0].value == 0x1f)
        #expect(attributes[1].value == 4 | 1 << 16)
        #expect(attributes[2].value == UInt32(VA_RC_CQP | VA_RC_CBR | VA_RC_VBR))
        #expect(attributes[3].value == 32, "EncMaxSlices as i965")
    }

    @Test("A clean IDR + P: success, no violation, the packed slice header is in the stream verbatim")
    func cleanPictures() throws {
        let client = try Client()
        let before = try #require(VTKSoftCounters.encodeViolations)
        let stream = try client.cleanPair()
        #expect(VTKSoftCounters.encodeViolations == before)
        let units = AnnexBScanner.nalUnits(in: stream)
        #expect(units.map(\.type) == [.sequenceParameterSet, .pictureParameterSet, .idrSlice, .nonIDRSlice])
        // The driver's SPS is the one the client packed its headers against.
        let sps = try SequenceParameterSet(nalUnit: try #require(units.first))
        #expect(sps == Client.parameterSets.0)
        let (sps0, pps0) = Client.parameterSets
        var sets = ParameterSets()
        sets.sps[0] = sps0
        sets.pps[0] = pps0
        let header = try SliceHeader(nalUnit: units[3], parameterSets: sets)
        #expect(header.frameNum == 1 && header.picOrderCntLsb == 2 && header.sliceType == .p)
    }

    @Test("Bad references, 7.4.3 breaks and disagreeing packed headers are coded and counted; the driver stays usable")
    func violationsAreCounted() throws {
        let client = try Client()
        _ = try client.cleanPair()
        func expectViolation(_ what: String, _ picture: Client.Picture) throws {
            let before = try #require(VTKSoftCounters.encodeViolations)
            let (s, bytes) = try client.encode(picture)
            #expect(s == VA_STATUS_SUCCESS, "\(what): \(status(s))")
            #expect(!bytes.isEmpty, "\(what): coded anyway")
            #expect((VTKSoftCounters.encodeViolations ?? 0) > before, "\(what): counted")
        }
        // recon[2] was never reconstructed into.
        var noRecon = Client.Picture(idr: false, frameNum: 2, poc: 4, recon: 0)
        noRecon.list0 = [Client.entry(client.recon[2], poc: 0)]
        noRecon.referenceFrames = noRecon.list0
        try expectViolation("reference without reconstruction", noRecon)

        var notInFrames = Client.Picture(idr: false, frameNum: 3, poc: 6, recon: 2)
        notInFrames.list0 = [Client.entry(client.recon[1], poc: 2)]
        try expectViolation("list entry missing from ReferenceFrames", notInFrames)

        try expectViolation("IDR with frame_num 5", Client.Picture(idr: true, frameNum: 5, idrPicId: 1))
        try expectViolation("consecutive IDRs with one idr_pic_id", Client.Picture(idr: true, idrPicId: 1))
        var skipped = Client.Picture(idr: false, frameNum: 4, poc: 2, recon: 1)
        skipped.list0 = [Client.entry(client.recon[0], poc: 0)]
        skipped.referenceFrames = skipped.list0
        try expectViolation("frame_num jumping from 0 to 4", skipped)

        var disagreeing = Client.Picture(idrPicId: 2)
        disagreeing.editPackedHeader = { $0.sliceQpDelta = 5 }
        try expectViolation("packed slice header with another slice_qp_delta", disagreeing)

        _ = try client.cleanPair()
    }

    @Test("Explicit weighted P (weighted_pred_flag 1, the slice's weights): coded without violation; FFmpeg decodes the reconstruction; out-of-range weights refused")
    func weightedPrediction() throws {
        guard ProcessRunner.hasFFmpeg else { try Test.cancel("ffmpeg is not installed") }
        let client = try Client()
        var first = Client.Picture()
        first.weightedPred = true
        let (s0, idr) = try client.encode(first)
        try #require(s0 == VA_STATUS_SUCCESS)
        var table = PredWeightTable()
        table.lumaLog2WeightDenom = 5
        table.chromaLog2WeightDenom = 4
        var e = PredWeightTable.Entry()
        (e.lumaWeightFlag, e.lumaWeight, e.lumaOffset) = (true, 40, -7)
        (e.chromaWeightFlag, e.chromaWeight, e.chromaOffset) = (true, [14, 18], [3, -2])
        table.l0 = [e]
        var p = Client.Picture(idr: false, frameNum: 1, poc: 2, recon: 1)
        p.list0 = [Client.entry(client.recon[0], poc: 0)]
        p.referenceFrames = p.list0
        p.weightedPred = true
        p.weights = table
        let before = try #require(VTKSoftCounters.encodeViolations)
        let (s1, inter) = try client.encode(p)
        #expect(s1 == VA_STATUS_SUCCESS, "\(status(s1))")
        #expect(VTKSoftCounters.encodeViolations == before)
        // The driver's PPS says weighted_pred_flag 1.
        let units = AnnexBScanner.nalUnits(in: idr + inter)
        let pps = try PictureParameterSet(nalUnit: try #require(units.first { $0.type == .pictureParameterSet })) { _ in Client.parameterSets.0 }
        #expect(pps.weightedPredFlag)
        // FFmpeg's decode of the P picture is the reconstruction the driver kept on its surface.
        let decoded = try Self.ffmpegLuma(idr + inter, size: Client.size)
        #expect(decoded.count == 2)
        let recon0 = try client.base.luma(client.recon[0]), recon1 = try client.base.luma(client.recon[1])
        #expect(decoded.first == recon0, "IDR: FFmpeg's decode differs from the reconstruction")
        let diff = zip(decoded.last ?? [], recon1).enumerated().filter { $0.element.0 != $0.element.1 }.prefix(5).map { "\($0.offset): \($0.element.0)/\($0.element.1)" }
        #expect(decoded.last == recon1, "FFmpeg's decode differs from the reconstruction: \(diff)")

        // A luma weight outside -128...127 (7.4.3.2): an error status, never a stream.
        table.l0[0].lumaWeight = 300
        p.weights = table
        p.frameNum = 2
        p.poc = 4
        let (s2, _) = try client.encode(p)
        let failed = s2 != VA_STATUS_SUCCESS || vaSyncSurface(client.display, client.recon[1]) != VA_STATUS_SUCCESS
        #expect(failed, "weight 300 coded")
        _ = try client.cleanPair()
    }

    @Test("Refused as hardware refuses: bit_length past the data, a list naming no surface; a tiny coded buffer flagged as overflowing")
    func refusals() throws {
        let client = try Client()
        var tooLong = Client.Picture()
        tooLong.packedBitLengthExtra = 64
        #expect(try client.encode(tooLong).0 == VA_STATUS_ERROR_INVALID_PARAMETER)

        let tiny = try client.codedBuffer(16)
        defer { vaDestroyBuffer(client.display, tiny) }
        // Found while coding: vaEndPicture has succeeded; the segment is empty and flagged.
        let (status, bytes) = try client.encode(Client.Picture(), coded: tiny)
        #expect(status == VA_STATUS_SUCCESS && bytes.isEmpty)
        var pointer: UnsafeMutableRawPointer?
        #expect(vaMapBuffer(client.display, tiny, &pointer) == VA_STATUS_SUCCESS)
        let segment = try #require(pointer).assumingMemoryBound(to: VACodedBufferSegment.self).pointee
        #expect(segment.status & UInt32(VA_CODED_BUF_STATUS_SLICE_OVERFLOW_MASK) != 0)
        vaUnmapBuffer(client.display, tiny)

        _ = try client.cleanPair()
        var bogus = Client.Picture(idr: false, frameNum: 2, poc: 4, recon: 2)
        bogus.list0 = [Client.entry(0xdead, poc: 0)]
        #expect(try client.encode(bogus).0 == VA_STATUS_ERROR_INVALID_SURFACE)

        _ = try client.cleanPair()
    }
}
