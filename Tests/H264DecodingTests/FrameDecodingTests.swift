import Testing
import H264Bitstream
@testable import H264Decoding
import VideoDecoding

/// The decoding process for frames, unit by unit: POC (8.2.1), PicNum (8.2.4.1), list initialisation (8.2.4.2.1,
/// 8.2.4.2.3) and modification (8.2.4.3), marking (8.2.5.3, 8.2.5.4) and the DPB's output process (C.4.5). Every
/// expected number below is worked out by hand from the clause cited beside it (the oracle), not read from the
/// code. The field cases are in ``FieldDecodingTests``; whole streams against FFmpeg in ``OutputOrderTests``.
@Suite("H.264 decoding process: frames (POC, PicNum, lists, marking, DPB)")
struct FrameDecodingTests {
    typealias F = FieldDecodingTests

    static func frame(_ id: Int, frameNum: Int, marking: ReferenceMarking = .shortTerm, poc: Int = 0, longTermFrameIdx: Int = 0,
                      output: Bool = true) -> DecodedPicture {
        var p = F.store(id, frameNum: frameNum, top: marking, bottom: marking, poc: (poc, poc), longTermFrameIdx: longTermFrameIdx)
        p.neededForOutput = output
        return p
    }

    static func ids(_ list: [DecodedPicture?]) -> [Int] { list.map { $0?.id.rawValue ?? -1 } }

    static func outputs(_ events: [H264DecodedPictureBuffer.Event]) -> [Int] {
        events.compactMap { if case .output(let p) = $0 { return p.id.rawValue } else { return nil } }
    }

    static func removals(_ events: [H264DecodedPictureBuffer.Event]) -> [Int] {
        events.compactMap { if case .removed(let id) = $0 { return id.rawValue } else { return nil } }
    }

    // MARK: 8.2.1 POC

    /// Runs frames through a PictureOrderCount; `mmco5` marks the frames that had MMCO 5, whose counts the
    /// decoding process then lowers by tempPicOrderCnt (8.2.1). Returns (TopFieldOrderCnt, BottomFieldOrderCnt).
    static func pocs(_ sps: SequenceParameterSet, _ headers: [SliceHeader], mmco5: Set<Int> = []) -> [[Int]] {
        var poc = PictureOrderCount()
        return headers.enumerated().map { index, h in
            let r = poc.compute(slice: h, sps: sps)
            var p = DecodedPicture(id: PictureID(rawValue: index), decodeIndex: index, frameNum: h.frameNum)
            p.topFieldOrderCnt = r.topFieldOrderCnt
            p.bottomFieldOrderCnt = r.bottomFieldOrderCnt
            if mmco5.contains(index) {
                p.hadMMCO5 = true
                let temp = min(p.topFieldOrderCnt, p.bottomFieldOrderCnt)
                p.topFieldOrderCnt -= temp
                p.bottomFieldOrderCnt -= temp
            }
            poc.pictureDecoded(r, slice: h, picture: p)
            return [r.topFieldOrderCnt, r.bottomFieldOrderCnt]
        }
    }

    @Test("POC type 0 for frames (8.2.1.1): MSB wraps both ways, non-reference frames leave the state, MMCO 5 resets it")
    func pocType0() {
        var sps = SequenceParameterSet()
        sps.picOrderCntType = 0
        sps.log2MaxPicOrderCntLsbMinus4 = 0  // MaxPicOrderCntLsb 16
        var withBottomDelta = F.header(.frame, frameNum: 1, lsb: 6)
        withBottomDelta.deltaPicOrderCntBottom = 1
        let headers = [
            F.header(.frame, frameNum: 0, idr: true, lsb: 0),
            withBottomDelta,                                              // 6, bottom 6 + 1
            F.header(.frame, frameNum: 2, reference: false, lsb: 2, type: .b),  // 2
            F.header(.frame, frameNum: 2, lsb: 14),                       // 14
            // 14 - 4 >= 8: PicOrderCntMsb = 0 + 16 (8-3).
            F.header(.frame, frameNum: 3, lsb: 4),                        // 20
            // 15 - 4 > 8: PicOrderCntMsb = 16 - 16 (8-3), from the previous reference frame.
            F.header(.frame, frameNum: 4, reference: false, lsb: 15, type: .b),  // 15
            // The non-reference frame did not move prevPicOrderCntMsb/Lsb (16, 4).
            F.header(.frame, frameNum: 4, lsb: 6),                        // 22
        ]
        #expect(Self.pocs(sps, headers) == [[0, 0], [6, 7], [2, 2], [14, 14], [20, 20], [15, 15], [22, 22]])

        // After a frame with MMCO 5, prevPicOrderCntMsb = 0 and prevPicOrderCntLsb = its TopFieldOrderCnt after
        // the tempPicOrderCnt adjustment (0 here): lsb 3 is 3, not 16 + 3 as it would be after lsb 12.
        let afterMMCO5 = [F.header(.frame, frameNum: 0, idr: true, lsb: 0), F.header(.frame, frameNum: 1, lsb: 6),
                          F.header(.frame, frameNum: 2, lsb: 12), F.header(.frame, frameNum: 1, lsb: 3)]
        #expect(Self.pocs(sps, afterMMCO5, mmco5: [2]).map { $0[0] } == [0, 6, 12, 3])
        #expect(Self.pocs(sps, afterMMCO5).map { $0[0] } == [0, 6, 12, 19])
    }

    @Test("POC type 1 for frames (8.2.1.2): expected counts over the offset_for_ref_frame cycle, non-reference offset, deltas")
    func pocType1() {
        var sps = SequenceParameterSet()
        sps.picOrderCntType = 1
        sps.offsetForRefFrame = [4, 2]  // ExpectedDeltaPerPicOrderCntCycle 6
        sps.offsetForNonRefPic = -3
        sps.offsetForTopToBottomField = 1
        var nonRef = F.header(.frame, frameNum: 4, reference: false, type: .b)
        nonRef.deltaPicOrderCnt = [1, 2]
        let headers = [
            F.header(.frame, frameNum: 0, idr: true),  // absFrameNum 0: expected 0; bottom 0 + 1
            F.header(.frame, frameNum: 1),             // absFrameNum 1: 4
            F.header(.frame, frameNum: 2),             // 2: 4 + 2
            F.header(.frame, frameNum: 3),             // 3: one cycle (6) + 4
            // absFrameNum 4 - 1 = 3: 10, + offset_for_non_ref_pic = 7; top 7 + 1, bottom 8 + 1 + 2.
            nonRef,
        ]
        #expect(Self.pocs(sps, headers) == [[0, 1], [4, 5], [6, 7], [10, 11], [8, 11]])
    }

    @Test("POC type 2 for frames (8.2.1.3): 2·(FrameNumOffset + frame_num), minus 1 for non-reference; wrap and MMCO 5")
    func pocType2() {
        var sps = SequenceParameterSet()
        sps.picOrderCntType = 2
        sps.log2MaxFrameNumMinus4 = 0  // MaxFrameNum 16
        let headers = [
            F.header(.frame, frameNum: 0, idr: true), F.header(.frame, frameNum: 1),
            F.header(.frame, frameNum: 2, reference: false), F.header(.frame, frameNum: 2), F.header(.frame, frameNum: 15),
            // frame_num 15 -> 0: FrameNumOffset 16 (8-11).
            F.header(.frame, frameNum: 0), F.header(.frame, frameNum: 1, reference: false),
        ]
        #expect(Self.pocs(sps, headers).map { $0[0] } == [0, 2, 3, 4, 30, 32, 33])
        // After MMCO 5, prevFrameNumOffset and prevFrameNum are 0: frame_num 1 after 5 does not wrap.
        let afterMMCO5 = [F.header(.frame, frameNum: 0, idr: true), F.header(.frame, frameNum: 5), F.header(.frame, frameNum: 1)]
        #expect(Self.pocs(sps, afterMMCO5, mmco5: [1]).map { $0[0] } == [0, 10, 2])
        #expect(Self.pocs(sps, afterMMCO5).map { $0[0] } == [0, 10, 34])
    }

    // MARK: 8.2.4.1 PicNum

    @Test("FrameNumWrap, PicNum and LongTermPicNum of frames (8-27 to 8-29)")
    func picNums() {
        var dpb = F.dpb([Self.frame(1, frameNum: 14), Self.frame(2, frameNum: 1),
                         Self.frame(3, frameNum: 9, marking: .longTerm, longTermFrameIdx: 2)])
        dpb.update(PictureID(rawValue: 3)) { $0.frameNumWrap = 9 }
        ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: 2, maxFrameNum: 16)
        // frame_num 14 > 2: 14 - 16; frame_num 1 stays; a long-term frame is not updated.
        #expect(dpb.pictures.map(\.frameNumWrap) == [-2, 1, 9])
        #expect(dpb.pictures.map(\.picNum) == [-2, 1, 9])
        #expect(dpb.picture(PictureID(rawValue: 3))?.longTermPicNum == 2)
    }

    // MARK: 8.2.4.2 list initialisation

    static func lists(_ stores: [DecodedPicture], type: SliceType, frameNum: Int, currentPOC: Int = 0, count0: Int, count1: Int = 1,
                      modifications: [RefPicListModification] = []) -> ReferencePictureLists {
        var dpb = F.dpb(stores)
        ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: frameNum, maxFrameNum: 16)
        var h = F.header(.frame, frameNum: frameNum, type: type)
        h.numRefIdxL0ActiveMinus1 = count0 - 1
        h.numRefIdxL1ActiveMinus1 = count1 - 1
        h.refPicListModificationFlagL0 = !modifications.isEmpty
        h.refPicListModificationL0 = modifications
        return ReferencePictureLists(slice: h, currentPOC: currentPOC, dpb: dpb, maxFrameNum: 16)
    }

    @Test("P frame lists (8.2.4.2.1): short-term by descending PicNum across a frame_num wrap, then long-term by ascending LongTermPicNum")
    func pFrameList() {
        let stores = [
            Self.frame(1, frameNum: 1), Self.frame(2, frameNum: 14), Self.frame(3, frameNum: 3),
            Self.frame(4, frameNum: 0, marking: .longTerm, longTermFrameIdx: 2), Self.frame(5, frameNum: 0, marking: .longTerm, longTermFrameIdx: 0),
            Self.frame(6, frameNum: 2, marking: .unused),
        ]
        // Current frame_num 4: PicNum 3, 1, -2 (frame_num 14 wraps), then LongTermPicNum 0, 2; the unused frame is no entry.
        #expect(Self.ids(Self.lists(stores, type: .p, frameNum: 4, count0: 5).list0) == [3, 1, 2, 5, 4])
        // The initial list is longer than num_ref_idx_l0_active: it is cut (8.2.4.2).
        #expect(Self.ids(Self.lists(stores, type: .p, frameNum: 4, count0: 2).list0) == [3, 1])
        // Shorter: the rest is "no reference picture".
        #expect(Self.ids(Self.lists(stores, type: .p, frameNum: 4, count0: 7).list0) == [3, 1, 2, 5, 4, -1, -1])
    }

    @Test("B frame lists (8.2.4.2.3): by POC around the current frame, long-term after; list 1 swapped when equal to list 0")
    func bFrameList() {
        let stores = [
            Self.frame(1, frameNum: 1, poc: 4), Self.frame(2, frameNum: 2, poc: 8), Self.frame(3, frameNum: 3, poc: 12),
            Self.frame(4, frameNum: 4, poc: 16), Self.frame(5, frameNum: 0, marking: .longTerm, poc: 2, longTermFrameIdx: 1),
            Self.frame(6, frameNum: 0, marking: .longTerm, poc: 20, longTermFrameIdx: 0),
        ]
        let lists = Self.lists(stores, type: .b, frameNum: 5, currentPOC: 10, count0: 6, count1: 6)
        // List 0: POC below 10 descending (8, 4), above ascending (12, 16), long-term by LongTermPicNum (0, 1).
        #expect(Self.ids(lists.list0) == [2, 1, 3, 4, 6, 5])
        // List 1: above ascending, below descending, then long-term.
        #expect(Self.ids(lists.list1) == [3, 4, 2, 1, 6, 5])
        // Only frames before the current one: both lists are 8, 4, so list 1 swaps its first two entries.
        let past = Self.lists(Array(stores.prefix(2)), type: .b, frameNum: 5, currentPOC: 10, count0: 2, count1: 2)
        #expect(Self.ids(past.list0) == [2, 1])
        #expect(Self.ids(past.list1) == [1, 2])
        // One entry: no swap.
        let one = Self.lists(Array(stores.prefix(1)), type: .b, frameNum: 5, currentPOC: 10, count0: 1, count1: 1)
        #expect(Self.ids(one.list1) == [1])
    }

    // MARK: 8.2.4.3 list modification

    @Test("Frame list modification (8.2.4.3.1, 8.2.4.3.2): picNumPred steps, MaxPicNum wrap, long-term entries, a missing picture")
    func frameModification() {
        let stores = [Self.frame(1, frameNum: 1), Self.frame(2, frameNum: 2), Self.frame(3, frameNum: 3)]
        // CurrPicNum 4. abs_diff_pic_num_minus1 2 (idc 0): 4 - 3 = PicNum 1 first; then idc 1 with 0: 1 + 1 = PicNum 2.
        // Initial 3, 2, 1 -> 1, 3, 2 -> 1, 2, 3 (the later duplicate goes).
        let modified = Self.lists(stores, type: .p, frameNum: 4, count0: 3,
                                  modifications: [RefPicListModification(modificationOfPicNumsIdc: 0, value: 2),
                                                  RefPicListModification(modificationOfPicNumsIdc: 1, value: 0)])
        #expect(Self.ids(modified.list0) == [1, 2, 3])
        #expect(modified.problems.isEmpty)

        // idc 0 past zero: 4 - 6 = -2 + MaxPicNum 16 = 14 > CurrPicNum, so picNumLX = 14 - 16 = -2: frame_num 14.
        let wrapped = Self.lists([Self.frame(1, frameNum: 14), Self.frame(2, frameNum: 3)], type: .p, frameNum: 4, count0: 2,
                                 modifications: [RefPicListModification(modificationOfPicNumsIdc: 0, value: 5)])
        #expect(Self.ids(wrapped.list0) == [1, 2])

        // idc 2: the long-term frame with LongTermPicNum 1 at index 0, ahead of the short-term frames.
        let longTerm = Self.lists(stores + [Self.frame(4, frameNum: 0, marking: .longTerm, longTermFrameIdx: 1)], type: .p, frameNum: 4, count0: 2,
                                  modifications: [RefPicListModification(modificationOfPicNumsIdc: 2, value: 1)])
        #expect(Self.ids(longTerm.list0) == [4, 3])

        // PicNum 4 - 10 + 16 = 10 > 4: -6, which no frame has: reported, not a crash.
        let missing = Self.lists(stores, type: .p, frameNum: 4, count0: 1,
                                 modifications: [RefPicListModification(modificationOfPicNumsIdc: 0, value: 9)])
        #expect(!missing.problems.isEmpty)
    }

    // MARK: 8.2.5 marking

    @Test("Sliding window over frames (8.2.5.3): long-term frames count toward max_num_ref_frames and stay")
    func slidingWindow() {
        var dpb = F.dpb([Self.frame(1, frameNum: 0, marking: .longTerm), Self.frame(2, frameNum: 2), Self.frame(3, frameNum: 3)])
        ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: 4, maxFrameNum: 16)
        ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: 4)
        #expect(dpb.referenceFrames.map(\.id.rawValue) == [1, 2, 3], "3 references under 4: nothing changes")
        ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: 3)
        // The short-term frame with the smallest FrameNumWrap (2) goes; the long-term frame stays.
        #expect(dpb.referenceFrames.map(\.id.rawValue) == [1, 3])
    }

    static func runMMCO(_ dpb: inout H264DecodedPictureBuffer, _ ops: [MemoryManagementControlOperation], current: inout DecodedPicture,
                        frameNum: Int, maxLongTermFrameIdx: Int? = 4) -> (problems: [String], maxIdx: Int?, mmco5: Bool) {
        var problems: [String] = []
        // CurrPicNum = frame_num for a frame (7-19).
        let r = ReferencePictureMarking.adaptive(&dpb, operations: ops, current: &current, structure: .frame, currPicNum: frameNum,
                                                 maxLongTermFrameIdx: maxLongTermFrameIdx, problems: &problems)
        return (problems, r.maxLongTermFrameIdx, r.mmco5)
    }

    @Test("MMCO 1, 2 and 3 on frames (8.2.5.4.1 to 8.2.5.4.3): picNumX = CurrPicNum - (difference_of_pic_nums_minus1 + 1)")
    func mmco1To3() {
        var dpb = F.dpb([Self.frame(1, frameNum: 2), Self.frame(2, frameNum: 4),
                         Self.frame(3, frameNum: 0, marking: .longTerm, longTermFrameIdx: 1),
                         Self.frame(4, frameNum: 0, marking: .longTerm, longTermFrameIdx: 0)])
        ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: 5, maxFrameNum: 16)
        var current = Self.frame(5, frameNum: 5)
        // MMCO 1: 5 - 3 = PicNum 2 goes. MMCO 2: LongTermPicNum 1 goes. MMCO 3: 5 - 1 = PicNum 4 becomes long-term
        // index 0, which frame 4 loses.
        let r = Self.runMMCO(&dpb, [F.op(1, diff: 2), F.op(2, longTermPicNum: 1), F.op(3, diff: 0, idx: 0)], current: &current, frameNum: 5)
        #expect(r.problems.isEmpty)
        #expect(dpb.picture(PictureID(rawValue: 1))?.isReference == false)
        #expect(dpb.picture(PictureID(rawValue: 3))?.isReference == false)
        #expect(dpb.picture(PictureID(rawValue: 2))?.reference == .longTerm)
        #expect(dpb.picture(PictureID(rawValue: 2))?.longTermFrameIdx == 0)
        #expect(dpb.picture(PictureID(rawValue: 4))?.isReference == false)
        // A picture that is not there: reported, nothing else changes.
        let missing = Self.runMMCO(&dpb, [F.op(1, diff: 0)], current: &current, frameNum: 5)
        #expect(missing.problems.count == 1)
        #expect(dpb.referenceFrames.map(\.id.rawValue) == [2])
    }

    @Test("MMCO 4, 5 and 6 on frames (8.2.5.4.4 to 8.2.5.4.6)")
    func mmco4To6() {
        var dpb = F.dpb([Self.frame(1, frameNum: 0, marking: .longTerm, longTermFrameIdx: 0),
                         Self.frame(2, frameNum: 0, marking: .longTerm, longTermFrameIdx: 2), Self.frame(3, frameNum: 3)])
        var current = Self.frame(4, frameNum: 4)
        // max_long_term_frame_idx_plus1 1: MaxLongTermFrameIdx 0, index 2 goes.
        var r = Self.runMMCO(&dpb, [F.op(4, maxPlus1: 1)], current: &current, frameNum: 4)
        #expect(r.maxIdx == 0)
        #expect(dpb.referenceFrames.map(\.id.rawValue) == [1, 3])
        // MMCO 6: the current frame takes index 0, which frame 1 loses.
        r = Self.runMMCO(&dpb, [F.op(6, idx: 0)], current: &current, frameNum: 4, maxLongTermFrameIdx: 0)
        #expect(current.reference == .longTerm && current.longTermFrameIdx == 0)
        #expect(dpb.referenceFrames.map(\.id.rawValue) == [3])
        // max_long_term_frame_idx_plus1 0: "no long-term frame indices".
        r = Self.runMMCO(&dpb, [F.op(4, maxPlus1: 0)], current: &current, frameNum: 4, maxLongTermFrameIdx: 0)
        #expect(r.maxIdx == nil)
        // MMCO 5: every reference goes.
        r = Self.runMMCO(&dpb, [F.op(5)], current: &current, frameNum: 4, maxLongTermFrameIdx: nil)
        #expect(r.mmco5)
        #expect(dpb.referenceFrames.isEmpty)
    }

    // MARK: C.4 DPB

    @Test("DPB capacity (A.3.1 h, Table A-1): MaxDpbMbs over the frame size, level 1b, VUI max_dec_frame_buffering, max_num_ref_frames")
    func capacity() {
        var sps = SequenceParameterSet()
        sps.picWidthInMbsMinus1 = 79  // 1280x720: 3600 MBs
        sps.picHeightInMapUnitsMinus1 = 44
        sps.levelIdc = 31  // 18000 / 3600
        #expect(H264DecodedPictureBuffer.capacity(for: sps) == 5)
        sps.levelIdc = 40  // 32768 / 3600
        #expect(H264DecodedPictureBuffer.capacity(for: sps) == 9)
        var qcif = SequenceParameterSet()
        qcif.picWidthInMbsMinus1 = 10  // 176x144: 99 MBs
        qcif.picHeightInMapUnitsMinus1 = 8
        qcif.levelIdc = 11
        #expect(H264DecodedPictureBuffer.capacity(for: qcif) == 9, "level 1.1: 900 / 99")
        qcif.constraintSet3Flag = true  // Baseline level 1b: 396 / 99
        #expect(H264DecodedPictureBuffer.capacity(for: qcif) == 4)
        qcif.vuiParametersPresentFlag = true
        qcif.vui.bitstreamRestrictionFlag = true
        qcif.vui.maxDecFrameBuffering = 2
        #expect(H264DecodedPictureBuffer.capacity(for: qcif) == 2)
        qcif.maxNumRefFrames = 3
        #expect(H264DecodedPictureBuffer.capacity(for: qcif) == 3, "never fewer than max_num_ref_frames")
    }

    @Test("Bumping (C.4.5.3): smallest POC first until a buffer is free; an output reference stays stored")
    func bumping() {
        var dpb = H264DecodedPictureBuffer(capacity: 2)
        _ = dpb.store(Self.frame(1, frameNum: 0, poc: 0))
        _ = dpb.store(Self.frame(2, frameNum: 1, marking: .unused, poc: 8))
        let events = dpb.store(Self.frame(3, frameNum: 1, poc: 12))
        // Frame 1 (POC 0) is output but is a reference, so no buffer is free; frame 2 (POC 8) is output and goes.
        #expect(Self.outputs(events) == [1, 2])
        #expect(Self.removals(events) == [2])
        #expect(dpb.pictures.map(\.id.rawValue) == [1, 3])
        #expect(Self.outputs(dpb.flush()) == [3])
    }

    @Test("C.4.5.2: a non-reference frame with a smaller POC than every waiting frame is output at once when the DPB is full")
    func nonReferenceOutputAtOnce() {
        var dpb = H264DecodedPictureBuffer(capacity: 1)
        _ = dpb.store(Self.frame(1, frameNum: 0, poc: 8))
        let events = dpb.store(Self.frame(2, frameNum: 1, marking: .unused, poc: 4))
        #expect(Self.outputs(events) == [2])
        #expect(Self.removals(events) == [2])
        #expect(dpb.pictures.map(\.id.rawValue) == [1], "never stored; frame 1 still waits")
    }

    @Test("max_num_reorder_frames (C.4.5.3): a frame is output as soon as more than that many wait, in POC order")
    func reorderLimit() {
        var dpb = H264DecodedPictureBuffer(capacity: 4, maxNumReorderFrames: 1)
        #expect(Self.outputs(dpb.store(Self.frame(1, frameNum: 0, poc: 0))) == [])
        #expect(Self.outputs(dpb.store(Self.frame(2, frameNum: 1, poc: 8))) == [1])
        #expect(Self.outputs(dpb.store(Self.frame(3, frameNum: 2, marking: .unused, poc: 4))) == [3])
        #expect(Self.outputs(dpb.flush()) == [2])
    }

    @Test("A DPB full of references that wait for no output drops the oldest short-term frame (damaged streams)")
    func fullOfReferences() {
        var dpb = H264DecodedPictureBuffer(capacity: 2)
        var a = Self.frame(1, frameNum: 1, output: false), b = Self.frame(2, frameNum: 2, output: false)
        a.frameNumWrap = 1
        b.frameNumWrap = 2
        _ = dpb.store(a)
        _ = dpb.store(b)
        let events = dpb.store(Self.frame(3, frameNum: 3, poc: 6))
        #expect(Self.removals(events) == [1])
        #expect(dpb.pictures.map(\.id.rawValue) == [2, 3])
    }

    @Test("IDR or MMCO 5 (8.2.5.1, C.4.4): every frame unused for reference; those waiting for output stay until output")
    func markAllUnused() {
        var dpb = H264DecodedPictureBuffer(capacity: 4)
        _ = dpb.store(Self.frame(1, frameNum: 0, poc: 0, output: false))
        _ = dpb.store(Self.frame(2, frameNum: 1, poc: 4))
        let events = dpb.markAllUnused()
        #expect(Self.removals(events) == [1])
        #expect(dpb.referenceFrames.isEmpty)
        #expect(dpb.pictures.map(\.id.rawValue) == [2])
        #expect(Self.outputs(dpb.flush()) == [2])
        // no_output_of_prior_pics_flag: the waiting frames are dropped, not output.
        _ = dpb.store(Self.frame(3, frameNum: 0, poc: 0))
        let dropped = dpb.flush(output: false)
        #expect(Self.outputs(dropped) == [])
        #expect(dpb.isEmpty)
    }
}
