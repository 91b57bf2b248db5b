import H264Bitstream
import VideoDecoding

/// Reference picture lists of one slice: initialisation (8.2.4.2) and modification (8.2.4.3), for frames
/// and fields. An entry is nil where the list has no picture ("no reference picture"). In a field picture
/// each entry is one field of its frame store (``DecodedPicture/structure``).
public struct ReferencePictureLists: Hashable, Sendable {
    public var list0: [DecodedPicture?] = []
    public var list1: [DecodedPicture?] = []
    /// Problems found: a modification naming a picture that is not in the DPB, or a list shorter than
    /// num_ref_idx_active.
    public var problems: [String] = []

    public init() {}

    /// Builds the lists for `slice` of the current picture from the DPB. `currentPOC` is the current
    /// picture's PicOrderCnt (a field's own count). For the second field of a pair, the DPB holds the first.
    public init(slice: SliceHeader, currentPOC: Int, dpb: H264DecodedPictureBuffer, maxFrameNum: Int) {
        let type = slice.sliceType
        guard !type.isIntra else { return }
        let structure = PictureStructure(slice)
        var initial0: [DecodedPicture] = []
        var initial1: [DecodedPicture] = []
        if structure.isField {
            (initial0, initial1) = Self.initialFieldLists(type: type, parity: structure, currentPOC: currentPOC, dpb: dpb)
        } else {
            (initial0, initial1) = Self.initialFrameLists(type: type, currentPOC: currentPOC, dpb: dpb)
        }
        let count0 = slice.numRefIdxL0ActiveMinus1 + 1
        list0 = Self.modified(initial0, count: count0, modifications: slice.refPicListModificationFlagL0 ? slice.refPicListModificationL0 : [],
                              slice: slice, dpb: dpb, maxFrameNum: maxFrameNum, problems: &problems, name: "RefPicList0")
        if type == .b {
            let count1 = slice.numRefIdxL1ActiveMinus1 + 1
            list1 = Self.modified(initial1, count: count1, modifications: slice.refPicListModificationFlagL1 ? slice.refPicListModificationL1 : [],
                                  slice: slice, dpb: dpb, maxFrameNum: maxFrameNum, problems: &problems, name: "RefPicList1")
        }
    }

    /// 8.2.4.2.1 (P) and 8.2.4.2.3 (B), for frames.
    static func initialFrameLists(type: SliceType, currentPOC: Int, dpb: H264DecodedPictureBuffer) -> ([DecodedPicture], [DecodedPicture]) {
        let shortTerm = dpb.shortTermFrames
        let longTerm = dpb.longTermFrames.sorted { $0.longTermPicNum < $1.longTermPicNum }
        if type == .p || type == .sp {
            // 8.2.4.2.1: short-term by descending PicNum, then long-term by ascending LongTermPicNum.
            return (shortTerm.sorted { $0.picNum > $1.picNum } + longTerm, [])
        }
        // 8.2.4.2.3: by POC around the current picture.
        let before = shortTerm.filter { $0.picOrderCnt < currentPOC }.sorted { $0.picOrderCnt > $1.picOrderCnt }
        let after = shortTerm.filter { $0.picOrderCnt > currentPOC }.sorted { $0.picOrderCnt < $1.picOrderCnt }
        var initial1 = after + before + longTerm
        let initial0 = before + after + longTerm
        if initial1.count > 1 && initial0.map(\.id) == initial1.map(\.id) { initial1.swapAt(0, 1) }
        return (initial0, initial1)
    }

    /// 8.2.4.2.2 (P) and 8.2.4.2.4 (B), for fields: frame stores are ordered as for frames, then split into fields by 8.2.4.2.5.
    static func initialFieldLists(type: SliceType, parity: PictureStructure, currentPOC: Int,
                                  dpb: H264DecodedPictureBuffer) -> ([DecodedPicture], [DecodedPicture]) {
        let shortTerm = dpb.shortTermStores
        let longTerm = dpb.longTermStores.sorted { $0.longTermFrameIdx < $1.longTermFrameIdx }
        let longFields = alternate(longTerm, parity: parity, marking: .longTerm)
        if type == .p || type == .sp {
            // 8.2.4.2.2: refFrameList0ShortTerm by descending FrameNumWrap (the current frame's first field
            // included), refFrameListLongTerm by ascending LongTermFrameIdx.
            let ordered = shortTerm.sorted { $0.frameNumWrap > $1.frameNumWrap }
            return (alternate(ordered, parity: parity, marking: .shortTerm) + longFields, [])
        }
        // 8.2.4.2.4: a store's PicOrderCnt is that of the fields it holds (as JM and FFmpeg count it); entries
        // with a POC equal to the current field's (the first field of the same frame) go before it in list 0.
        func poc(_ store: DecodedPicture) -> Int { store.picOrderCnt }
        let before = shortTerm.filter { poc($0) <= currentPOC }.sorted { poc($0) > poc($1) }
        let after = shortTerm.filter { poc($0) > currentPOC }.sorted { poc($0) < poc($1) }
        let initial0 = alternate(before + after, parity: parity, marking: .shortTerm) + longFields
        var initial1 = alternate(after + before, parity: parity, marking: .shortTerm) + longFields
        if initial1.count > 1 && initial0.map(\.self) == initial1.map(\.self) { initial1.swapAt(0, 1) }
        return (initial0, initial1)
    }

    /// 8.2.4.2.5: fields taken in turn from the ordered frame stores, starting with the current field's
    /// parity and alternating; fields not marked `marking` are skipped, and when one parity runs out the
    /// rest of the other follows in order.
    static func alternate(_ stores: [DecodedPicture], parity: PictureStructure, marking: ReferenceMarking) -> [DecodedPicture] {
        let same = stores.filter { $0.reference(of: parity) == marking }.map { $0.field(parity) }
        let opposite = stores.filter { $0.reference(of: parity.opposite) == marking }.map { $0.field(parity.opposite) }
        var fields: [DecodedPicture] = []
        var i = 0, j = 0
        while i < same.count || j < opposite.count {
            if i < same.count { fields.append(same[i]); i += 1 }
            if j < opposite.count { fields.append(opposite[j]); j += 1 }
        }
        return fields
    }

    /// 8.2.4.3: applies the modifications to the initial list, truncated or padded to `count` entries.
    static func modified(_ initial: [DecodedPicture], count: Int, modifications: [RefPicListModification],
                         slice: SliceHeader, dpb: H264DecodedPictureBuffer, maxFrameNum: Int,
                         problems: inout [String], name: String) -> [DecodedPicture?] {
        var list: [DecodedPicture?] = Array(initial.prefix(count))
        while list.count < count { list.append(nil) }
        guard !modifications.isEmpty else {
            if initial.count < count && !dpb.referenceFrames.isEmpty && initial.isEmpty {
                problems.append("\(name) is empty")
            }
            return list
        }
        let structure = PictureStructure(slice)
        // 8.2.4.1: in a field, MaxPicNum = 2 * MaxFrameNum and CurrPicNum = 2 * frame_num + 1.
        let maxPicNum = structure.isField ? 2 * maxFrameNum : maxFrameNum
        let currPicNum = structure.isField ? 2 * slice.frameNum + 1 : slice.frameNum
        var picNumPred = currPicNum
        var refIdx = 0
        for modification in modifications {
            guard refIdx < count else { break }
            var picture: DecodedPicture?
            switch modification.modificationOfPicNumsIdc {
            case 0, 1:
                // 8.2.4.3.1
                let absDiff = modification.value + 1
                var noWrap: Int
                if modification.modificationOfPicNumsIdc == 0 {
                    noWrap = picNumPred - absDiff
                    if noWrap < 0 { noWrap += maxPicNum }
                } else {
                    noWrap = picNumPred + absDiff
                    if noWrap >= maxPicNum { noWrap -= maxPicNum }
                }
                picNumPred = noWrap
                let picNum = noWrap > currPicNum ? noWrap - maxPicNum : noWrap
                picture = Self.shortTerm(picNum: picNum, structure: structure, dpb: dpb)
                if picture == nil { problems.append("\(name)[\(refIdx)]: no short-term picture with PicNum \(picNum)") }
            case 2:
                // 8.2.4.3.2
                picture = Self.longTerm(longTermPicNum: modification.value, structure: structure, dpb: dpb)
                if picture == nil { problems.append("\(name)[\(refIdx)]: no long-term picture with LongTermPicNum \(modification.value)") }
            default:
                problems.append("\(name): modification_of_pic_nums_idc \(modification.modificationOfPicNumsIdc) (MVC) ignored")
                continue
            }
            // Insert at refIdx; remove the same picture (the same field) from later positions.
            list.insert(picture, at: refIdx)
            refIdx += 1
            var n = refIdx
            for c in refIdx..<list.count {
                let entry = list[c]
                let same = picture != nil && entry?.id == picture?.id && entry?.structure == picture?.structure
                    && entry?.reference(of: entry?.structure ?? .frame) == picture?.reference(of: picture?.structure ?? .frame)
                if !same { list[n] = entry; n += 1 }
            }
            list.removeSubrange(n..<list.count)
        }
        if list.count > count { list.removeSubrange(count..<list.count) }
        while list.count < count { list.append(nil) }
        return list
    }

    /// The short-term frame, or in a field picture the short-term field, with PicNum `picNum` (8.2.4.1).
    static func shortTerm(picNum: Int, structure: PictureStructure, dpb: H264DecodedPictureBuffer) -> DecodedPicture? {
        guard structure.isField else { return dpb.shortTermFrames.first { $0.picNum == picNum } }
        for store in dpb.shortTermStores {
            for field in [PictureStructure.topField, .bottomField]
            where store.reference(of: field) == .shortTerm && store.picNum(of: field, current: structure) == picNum {
                return store.field(field)
            }
        }
        return nil
    }

    /// The long-term frame, or in a field picture the long-term field, with LongTermPicNum `longTermPicNum`.
    static func longTerm(longTermPicNum: Int, structure: PictureStructure, dpb: H264DecodedPictureBuffer) -> DecodedPicture? {
        guard structure.isField else { return dpb.longTermFrames.first { $0.longTermPicNum == longTermPicNum } }
        for store in dpb.longTermStores {
            for field in [PictureStructure.topField, .bottomField]
            where store.reference(of: field) == .longTerm && store.longTermPicNum(of: field, current: structure) == longTermPicNum {
                return store.field(field)
            }
        }
        return nil
    }
}
