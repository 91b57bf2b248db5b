import Testing
import H264Bitstream
@testable import H264Decoding
import VideoDecoding

/// The decoding process for fields, value by value against the spec's equations: every expected number below
/// is worked out by hand from the clause cited beside it (the oracle), not read from the code.
@Suite("H.264 decoding process: fields (POC, PicNum, lists, marking, DPB)")
struct FieldDecodingTests {
    static func header(_ structure: PictureStructure, frameNum: Int, idr: Bool = false, reference: Bool = true,
                       lsb: Int = 0, type: SliceType = .p) -> SliceHeader {
        var h = SliceHeader()
        h.nalUnitType = idr ? .idrSlice : .nonIDRSlice
        h.nalRefIdc = reference ? 1 : 0
        h.frameNum = frameNum
        h.fieldPicFlag = structure.isField
        h.bottomFieldFlag = structure == .bottomField
        h.picOrderCntLsb = lsb
        h.sliceTypeRaw = type.rawValue
        return h
    }

    /// A store as the DPB holds it: both fields (or one), each marked.
    static func store(_ id: Int, frameNum: Int, top: ReferenceMarking?, bottom: ReferenceMarking?, poc: (Int, Int) = (0, 0),
                      longTermFrameIdx: Int = 0) -> DecodedPicture {
        var p = DecodedPicture(id: PictureID(rawValue: id), decodeIndex: id, frameNum: frameNum)
        p.frameNumWrap = frameNum
        p.hasTopField = top != nil
        p.hasBottomField = bottom != nil
        p.topReference = top ?? .unused
        p.bottomReference = bottom ?? .unused
        p.structure = top != nil && bottom != nil ? .frame : (top != nil ? .topField : .bottomField)
        p.topFieldOrderCnt = poc.0
        p.bottomFieldOrderCnt = poc.1
        p.longTermFrameIdx = longTermFrameIdx
        p.neededForOutput = true
        return p
    }

    static func dpb(_ stores: [DecodedPicture], capacity: Int = 8) -> H264DecodedPictureBuffer {
        var dpb = H264DecodedPictureBuffer(capacity: capacity)
        for store in stores { _ = dpb.store(store) }
        _ = dpb.endFieldPairing()
        return dpb
    }

    static func names(_ list: [DecodedPicture?]) -> [String] {
        list.map { p in p.map { "\($0.id.rawValue)\($0.structure == .topField ? "t" : $0.structure == .bottomField ? "b" : "f")" } ?? "-" }
    }

    // MARK: 8.2.1 POC

    /// Runs pictures through a PictureOrderCount as the decoding process does; returns each field's count.
    static func pocs(_ sps: SequenceParameterSet, _ headers: [SliceHeader]) -> [Int] {
        var poc = PictureOrderCount()
        return headers.map { h in
            let r = poc.compute(slice: h, sps: sps)
            var p = DecodedPicture(id: PictureID(rawValue: 0), decodeIndex: 0, frameNum: h.frameNum)
            p.topFieldOrderCnt = r.topFieldOrderCnt
            p.bottomFieldOrderCnt = r.bottomFieldOrderCnt
            poc.pictureDecoded(r, slice: h, picture: p)
            return h.bottomFieldFlag ? r.bottomFieldOrderCnt : r.topFieldOrderCnt
        }
    }

    @Test("POC type 0 for fields (8.2.1.1): each field its own lsb, MSB wrap from the previous reference field")
    func pocType0() {
        var sps = SequenceParameterSet()
        sps.picOrderCntType = 0
        sps.log2MaxPicOrderCntLsbMinus4 = 0  // MaxPicOrderCntLsb 16
        var bottomWithDelta = Self.header(.bottomField, frameNum: 2, lsb: 13)
        bottomWithDelta.deltaPicOrderCntBottom = 5  // not present in field slices (7.3.3); must not count
        let headers = [
            Self.header(.topField, frameNum: 0, idr: true, lsb: 0), Self.header(.bottomField, frameNum: 0, lsb: 1),
            Self.header(.topField, frameNum: 1, lsb: 8), Self.header(.bottomField, frameNum: 1, lsb: 9),
            Self.header(.topField, frameNum: 2, lsb: 12), bottomWithDelta,
            // lsb 2 after 13: 13 - 2 >= 8, so PicOrderCntMsb = 0 + 16 (8-3).
            Self.header(.topField, frameNum: 3, lsb: 2), Self.header(.bottomField, frameNum: 3, lsb: 3),
            // A non-reference field does not move prevPicOrderCntMsb/Lsb: lsb 1 after reference lsb 3 stays at MSB 16.
            Self.header(.topField, frameNum: 4, reference: false, lsb: 1),
        ]
        #expect(Self.pocs(sps, headers) == [0, 1, 8, 9, 12, 13, 18, 19, 17])
        // A frame applies delta_pic_order_cnt_bottom; a field never does.
        var frame = Self.header(.frame, frameNum: 0, idr: true, lsb: 4)
        frame.deltaPicOrderCntBottom = 3
        let r = PictureOrderCount().compute(slice: frame, sps: sps)
        #expect(r.topFieldOrderCnt == 4 && r.bottomFieldOrderCnt == 7)
    }

    @Test("POC type 1 for fields (8.2.1.2): offset_for_top_to_bottom_field and delta_pic_order_cnt[0] for a bottom field")
    func pocType1() {
        var sps = SequenceParameterSet()
        sps.picOrderCntType = 1
        sps.offsetForRefFrame = [4, 2]
        sps.offsetForNonRefPic = -3
        sps.offsetForTopToBottomField = 1
        var nonRefBottom = Self.header(.bottomField, frameNum: 2, reference: false)
        nonRefBottom.deltaPicOrderCnt = [2, 0]
        let headers = [
            Self.header(.topField, frameNum: 0, idr: true), Self.header(.bottomField, frameNum: 0),
            // absFrameNum 1: expectedPicOrderCnt = offset_for_ref_frame[0] = 4; bottom 4 + 1.
            Self.header(.topField, frameNum: 1), Self.header(.bottomField, frameNum: 1),
            // Non-reference, frame_num 2: absFrameNum 2 - 1 = 1, expected 4 - 3 = 1; bottom 1 + 1 + 2.
            Self.header(.topField, frameNum: 2, reference: false), nonRefBottom,
            // absFrameNum 2: 4 + 2 = 6.
            Self.header(.topField, frameNum: 2), Self.header(.bottomField, frameNum: 2),
        ]
        #expect(Self.pocs(sps, headers) == [0, 1, 4, 5, 1, 4, 6, 7])
    }

    @Test("POC type 2 for fields (8.2.1.3): 2·(FrameNumOffset + frame_num), minus 1 for non-reference fields")
    func pocType2() {
        var sps = SequenceParameterSet()
        sps.picOrderCntType = 2
        sps.log2MaxFrameNumMinus4 = 0  // MaxFrameNum 16
        let headers = [
            Self.header(.topField, frameNum: 0, idr: true), Self.header(.bottomField, frameNum: 0),
            Self.header(.topField, frameNum: 1), Self.header(.bottomField, frameNum: 1),
            Self.header(.topField, frameNum: 2, reference: false), Self.header(.bottomField, frameNum: 2, reference: false),
            Self.header(.bottomField, frameNum: 15), Self.header(.topField, frameNum: 15),
            // frame_num wraps: FrameNumOffset 16 (8-11).
            Self.header(.topField, frameNum: 0), Self.header(.bottomField, frameNum: 0),
        ]
        #expect(Self.pocs(sps, headers) == [0, 0, 2, 2, 3, 3, 30, 30, 32, 32])
    }

    // MARK: 8.2.4.1 PicNum

    @Test("PicNum and LongTermPicNum of fields (8-30 to 8-33): 2·n+1 for the same parity, 2·n for the opposite")
    func picNums() {
        var p = Self.store(1, frameNum: 3, top: .shortTerm, bottom: .shortTerm, longTermFrameIdx: 2)
        p.frameNumWrap = -13  // frame_num 3 after a wrap of MaxFrameNum 16 seen from frame_num 2
        #expect(p.picNum(of: .topField, current: .topField) == -25)
        #expect(p.picNum(of: .bottomField, current: .topField) == -26)
        #expect(p.picNum(of: .bottomField, current: .bottomField) == -25)
        #expect(p.longTermPicNum(of: .topField, current: .bottomField) == 4)
        #expect(p.longTermPicNum(of: .bottomField, current: .bottomField) == 5)
        // FrameNumWrap for fields is as for frames (8-27), over every store with a short-term field.
        var dpb = Self.dpb([Self.store(1, frameNum: 14, top: .shortTerm, bottom: nil), Self.store(2, frameNum: 1, top: .unused, bottom: .shortTerm)])
        ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: 2, maxFrameNum: 16)
        #expect(dpb.pictures.map(\.frameNumWrap) == [-2, 1])
    }

    // MARK: 8.2.4.2 list initialisation

    @Test("P field lists (8.2.4.2.2, 8.2.4.2.5): stores by descending FrameNumWrap, fields alternating from the current parity")
    func pFieldList() {
        // A: both fields short-term; B: only its bottom field short-term; C: the current frame's first (top)
        // field; D: a long-term pair.
        let stores = [
            Self.store(1, frameNum: 1, top: .shortTerm, bottom: .shortTerm),
            Self.store(2, frameNum: 2, top: .unused, bottom: .shortTerm),
            Self.store(4, frameNum: 0, top: .longTerm, bottom: .longTerm),
            Self.store(3, frameNum: 3, top: .shortTerm, bottom: nil),
        ]
        var h = Self.header(.bottomField, frameNum: 3)
        h.numRefIdxL0ActiveMinus1 = 6
        let lists = ReferencePictureLists(slice: h, currentPOC: 0, dpb: Self.dpb(stores), maxFrameNum: 16)
        // Short-term stores C(3), B(2), A(1): bottom fields B, A; top fields C, A. Then long-term D: bottom, top.
        #expect(Self.names(lists.list0) == ["2b", "3t", "1b", "1t", "4b", "4t", "-"])
        // The same stores for a top field: top fields C, A; bottom fields B, A.
        h.bottomFieldFlag = false
        h.numRefIdxL0ActiveMinus1 = 3
        let top = ReferencePictureLists(slice: h, currentPOC: 0, dpb: Self.dpb(stores), maxFrameNum: 16)
        #expect(Self.names(top.list0) == ["3t", "2b", "1t", "1b"])
    }

    @Test("B field lists (8.2.4.2.4, 8.2.4.2.5): by POC around the current field, the first field of the same frame included")
    func bFieldList() {
        let stores = [
            Self.store(1, frameNum: 1, top: .shortTerm, bottom: .shortTerm, poc: (0, 1)),
            Self.store(5, frameNum: 2, top: .shortTerm, bottom: .shortTerm, poc: (8, 9)),
            Self.store(3, frameNum: 3, top: .shortTerm, bottom: nil, poc: (4, 0)),
        ]
        var h = Self.header(.bottomField, frameNum: 3, type: .b)
        h.numRefIdxL0ActiveMinus1 = 4
        h.numRefIdxL1ActiveMinus1 = 4
        let lists = ReferencePictureLists(slice: h, currentPOC: 5, dpb: Self.dpb(stores), maxFrameNum: 16)
        // refFrameList0ShortTerm: POC <= 5 descending C(4), A(0), then E(8). Bottom fields A, E; top C, A, E.
        #expect(Self.names(lists.list0) == ["1b", "3t", "5b", "1t", "5t"])
        // refFrameList1ShortTerm: E(8), then C(4), A(0). Bottom E, A; top E, C, A.
        #expect(Self.names(lists.list1) == ["5b", "5t", "1b", "3t", "1t"])
    }

    @Test("Field list modification (8.2.4.3.1): PicNum in field terms, CurrPicNum = 2·frame_num + 1")
    func fieldModification() {
        let stores = [Self.store(1, frameNum: 1, top: .shortTerm, bottom: .shortTerm), Self.store(2, frameNum: 2, top: .shortTerm, bottom: .shortTerm)]
        var h = Self.header(.topField, frameNum: 3)
        h.numRefIdxL0ActiveMinus1 = 1
        h.refPicListModificationFlagL0 = true
        // CurrPicNum 7; abs_diff_pic_num 5 -> PicNum 2: the bottom field (opposite parity) of frame_num 1.
        h.refPicListModificationL0 = [RefPicListModification(modificationOfPicNumsIdc: 0, value: 4)]
        let lists = ReferencePictureLists(slice: h, currentPOC: 0, dpb: Self.dpb(stores), maxFrameNum: 16)
        // Initial list: 2t, 2b, 1t, 1b; 1b goes first and the rest shift.
        #expect(Self.names(lists.list0) == ["1b", "2t"])
        #expect(lists.problems.isEmpty)
    }

    // MARK: 8.2.5 marking

    @Test("Sliding window over frame stores (8.2.5.3): a lone field counts as one, both fields of the oldest go")
    func slidingWindow() {
        var dpb = Self.dpb([Self.store(1, frameNum: 1, top: .shortTerm, bottom: .shortTerm),
                            Self.store(2, frameNum: 2, top: nil, bottom: .shortTerm)])
        ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: 3)
        #expect(dpb.referenceFrames.count == 2)
        ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: 2)
        #expect(dpb.picture(PictureID(rawValue: 1))?.topReference == .unused)
        #expect(dpb.picture(PictureID(rawValue: 1))?.bottomReference == .unused)
        #expect(dpb.referenceFrames.map(\.id.rawValue) == [2])
    }

    static func runMMCO(_ dpb: inout H264DecodedPictureBuffer, _ ops: [MemoryManagementControlOperation], current: inout DecodedPicture,
                        structure: PictureStructure, frameNum: Int) -> [String] {
        var problems: [String] = []
        _ = ReferencePictureMarking.adaptive(&dpb, operations: ops, current: &current, structure: structure,
                                             currPicNum: 2 * frameNum + 1, maxLongTermFrameIdx: 4, problems: &problems)
        return problems
    }

    static func op(_ n: Int, diff: Int = 0, longTermPicNum: Int = 0, idx: Int = 0, maxPlus1: Int = 0) -> MemoryManagementControlOperation {
        var o = MemoryManagementControlOperation(operation: n)
        o.differenceOfPicNumsMinus1 = diff
        o.longTermPicNum = longTermPicNum
        o.longTermFrameIdx = idx
        o.maxLongTermFrameIdxPlus1 = maxPlus1
        return o
    }

    @Test("MMCO 1 and 2 on fields (8.2.5.4.1, 8.2.5.4.2): one field goes, the store stays a reference through the other")
    func mmco1And2() {
        var dpb = Self.dpb([Self.store(1, frameNum: 1, top: .shortTerm, bottom: .shortTerm),
                            Self.store(2, frameNum: 0, top: .longTerm, bottom: .longTerm, longTermFrameIdx: 1)])
        var current = Self.store(3, frameNum: 3, top: nil, bottom: .shortTerm)
        // Current bottom field, frame_num 3: CurrPicNum 7. picNumX = 7 - 4 = 3: the bottom field (same parity) of frame_num 1.
        // LongTermPicNum 2: the top field (opposite parity) of LongTermFrameIdx 1.
        let problems = Self.runMMCO(&dpb, [Self.op(1, diff: 3), Self.op(2, longTermPicNum: 2)], current: &current, structure: .bottomField, frameNum: 3)
        #expect(problems.isEmpty)
        let a = dpb.picture(PictureID(rawValue: 1)), d = dpb.picture(PictureID(rawValue: 2))
        #expect(a?.topReference == .shortTerm && a?.bottomReference == .unused)
        #expect(a?.reference == .unused && a?.isReference == true)  // no longer a reference frame, still a reference store
        #expect(d?.topReference == .unused && d?.bottomReference == .longTerm)
    }

    @Test("MMCO 3 and 6 on fields (8.2.5.4.3, 8.2.5.4.6): a pair shares its LongTermFrameIdx; another holder loses it")
    func mmco3And6() {
        var dpb = Self.dpb([Self.store(1, frameNum: 1, top: .shortTerm, bottom: .shortTerm),
                            Self.store(2, frameNum: 0, top: .longTerm, bottom: .longTerm, longTermFrameIdx: 0)])
        var current = Self.store(3, frameNum: 2, top: .shortTerm, bottom: nil)
        // Current top field, frame_num 2: CurrPicNum 5. picNumX 3 (diff 1) = top field of frame_num 1, then 2 (diff 2)
        // = its bottom field: both to LongTermFrameIdx 0, which store 2 loses.
        var problems = Self.runMMCO(&dpb, [Self.op(3, diff: 1, idx: 0), Self.op(3, diff: 2, idx: 0)], current: &current, structure: .topField, frameNum: 2)
        #expect(problems.isEmpty)
        #expect(dpb.picture(PictureID(rawValue: 1))?.reference == .longTerm)
        #expect(dpb.picture(PictureID(rawValue: 1))?.longTermFrameIdx == 0)
        #expect(dpb.picture(PictureID(rawValue: 2))?.isReference == false)
        // MMCO 6 on the current (first) field, then on its second field with the same index: a long-term pair.
        problems = Self.runMMCO(&dpb, [Self.op(6, idx: 2)], current: &current, structure: .topField, frameNum: 2)
        _ = dpb.store(current)
        var second = current
        second.hasBottomField = true
        second.structure = .frame
        problems += Self.runMMCO(&dpb, [Self.op(6, idx: 2)], current: &second, structure: .bottomField, frameNum: 2)
        #expect(problems.isEmpty)
        #expect(second.reference == .longTerm && second.longTermFrameIdx == 2)
        #expect(dpb.picture(PictureID(rawValue: 1))?.reference == .longTerm, "index 0 is not touched by MMCO 6 with index 2")
    }

    @Test("MMCO 4 and 5 on fields (8.2.5.4.4, 8.2.5.4.5)")
    func mmco4And5() {
        var dpb = Self.dpb([Self.store(1, frameNum: 1, top: .longTerm, bottom: nil, longTermFrameIdx: 3),
                            Self.store(2, frameNum: 0, top: .longTerm, bottom: .longTerm, longTermFrameIdx: 1),
                            Self.store(3, frameNum: 2, top: .shortTerm, bottom: .shortTerm)])
        var current = Self.store(4, frameNum: 3, top: .shortTerm, bottom: nil)
        _ = Self.runMMCO(&dpb, [Self.op(4, maxPlus1: 2)], current: &current, structure: .topField, frameNum: 3)
        #expect(dpb.referenceFrames.map(\.id.rawValue) == [2, 3])
        _ = Self.runMMCO(&dpb, [Self.op(5)], current: &current, structure: .topField, frameNum: 3)
        #expect(dpb.referenceFrames.isEmpty)
    }

    // MARK: C.4.5 DPB with field stores

    @Test("DPB: a first field is not output before its pair; the pair comes out as one frame, a lone field on its own")
    func dpbFieldStores() {
        var dpb = H264DecodedPictureBuffer(capacity: 3, maxNumReorderFrames: 0)
        func outputs(_ events: [H264DecodedPictureBuffer.Event]) -> [Int] {
            events.compactMap { if case .output(let p) = $0 { return p.id.rawValue } else { return nil } }
        }
        // A top field: it waits for its bottom field even though no reordering is allowed.
        #expect(outputs(dpb.store(Self.store(1, frameNum: 0, top: .shortTerm, bottom: nil, poc: (0, 0)))) == [])
        #expect(dpb.awaitingSecondField == PictureID(rawValue: 1))
        let pair = Self.store(1, frameNum: 0, top: .shortTerm, bottom: .shortTerm, poc: (0, 1))
        #expect(outputs(dpb.completeSecondField(pair)) == [1])
        #expect(dpb.picture(PictureID(rawValue: 1))?.structure == .frame)
        // A lone bottom field: out once the next picture is known not to be its pair.
        #expect(outputs(dpb.store(Self.store(2, frameNum: 1, top: nil, bottom: .shortTerm, poc: (0, 5)))) == [])
        #expect(outputs(dpb.endFieldPairing()) == [2])

        // Bumping (C.4.5.3) by POC with field pairs, a full DPB and a waiting first field.
        var full = H264DecodedPictureBuffer(capacity: 2)
        _ = full.store(Self.store(1, frameNum: 0, top: .unused, bottom: .unused, poc: (8, 9)))
        _ = full.store(Self.store(2, frameNum: 1, top: .shortTerm, bottom: nil, poc: (4, 0)))
        _ = full.completeSecondField(Self.store(2, frameNum: 1, top: .shortTerm, bottom: .shortTerm, poc: (4, 5)))
        // Storing a third field store needs a frame buffer: the smallest POC (pair 2, POC 4) goes first.
        let events = full.store(Self.store(3, frameNum: 2, top: .shortTerm, bottom: nil, poc: (2, 0)))
        #expect(outputs(events) == [2, 1])
        #expect(outputs(full.flush()) == [3])
    }
}
