import H264Bitstream

/// Reference picture lists of one slice: initialisation (8.2.4.2) and modification (8.2.4.3), for frames.
/// An entry is nil where the list has no picture ("no reference picture").
public struct ReferencePictureLists: Hashable, Sendable {
    public var list0: [DecodedPicture?] = []
    public var list1: [DecodedPicture?] = []
    /// Problems found: a modification naming a picture that is not in the DPB, or a list shorter than
    /// num_ref_idx_active.
    public var problems: [String] = []

    public init() {}

    /// Builds the lists for `slice` of the current picture from the DPB.
    public init(slice: SliceHeader, currentPOC: Int, dpb: DecodedPictureBuffer, maxFrameNum: Int) {
        let type = slice.sliceType
        guard !type.isIntra else { return }
        let shortTerm = dpb.shortTermFrames
        let longTerm = dpb.longTermFrames.sorted { $0.longTermPicNum < $1.longTermPicNum }
        var initial0: [DecodedPicture] = []
        var initial1: [DecodedPicture] = []
        if type == .p || type == .sp {
            // 8.2.4.2.1: short-term by descending PicNum, then long-term by ascending LongTermPicNum.
            initial0 = shortTerm.sorted { $0.picNum > $1.picNum } + longTerm
        } else {
            // 8.2.4.2.3: by POC around the current picture.
            let before = shortTerm.filter { $0.picOrderCnt < currentPOC }.sorted { $0.picOrderCnt > $1.picOrderCnt }
            let after = shortTerm.filter { $0.picOrderCnt > currentPOC }.sorted { $0.picOrderCnt < $1.picOrderCnt }
            initial0 = before + after + longTerm
            initial1 = after + before + longTerm
            if initial1.count > 1 && initial0.map(\.id) == initial1.map(\.id) {
                initial1.swapAt(0, 1)
            }
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

    /// 8.2.4.3: applies the modifications to the initial list, truncated or padded to `count` entries.
    static func modified(_ initial: [DecodedPicture], count: Int, modifications: [RefPicListModification],
                         slice: SliceHeader, dpb: DecodedPictureBuffer, maxFrameNum: Int,
                         problems: inout [String], name: String) -> [DecodedPicture?] {
        var list: [DecodedPicture?] = Array(initial.prefix(count))
        while list.count < count { list.append(nil) }
        guard !modifications.isEmpty else {
            if initial.count < count && !dpb.referenceFrames.isEmpty && initial.isEmpty {
                problems.append("\(name) is empty")
            }
            return list
        }
        let maxPicNum = maxFrameNum  // frames: MaxPicNum = MaxFrameNum
        let currPicNum = slice.frameNum
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
                picture = dpb.shortTermFrames.first { $0.picNum == picNum }
                if picture == nil { problems.append("\(name)[\(refIdx)]: no short-term picture with PicNum \(picNum)") }
                // Insert at refIdx; remove the same picture from later positions.
                list.insert(picture, at: refIdx)
                refIdx += 1
                var n = refIdx
                for c in refIdx..<list.count {
                    let entry = list[c]
                    let same = entry?.reference == .shortTerm && entry?.picNum == picNum
                    if !same { list[n] = entry; n += 1 }
                }
                list.removeSubrange(n..<list.count)
            case 2:
                // 8.2.4.3.2
                let longTermPicNum = modification.value
                picture = dpb.longTermFrames.first { $0.longTermPicNum == longTermPicNum }
                if picture == nil { problems.append("\(name)[\(refIdx)]: no long-term picture with LongTermPicNum \(longTermPicNum)") }
                list.insert(picture, at: refIdx)
                refIdx += 1
                var n = refIdx
                for c in refIdx..<list.count {
                    let entry = list[c]
                    let same = entry?.reference == .longTerm && entry?.longTermPicNum == longTermPicNum
                    if !same { list[n] = entry; n += 1 }
                }
                list.removeSubrange(n..<list.count)
            default:
                problems.append("\(name): modification_of_pic_nums_idc \(modification.modificationOfPicNumsIdc) (MVC) ignored")
            }
        }
        if list.count > count { list.removeSubrange(count..<list.count) }
        while list.count < count { list.append(nil) }
        return list
    }
}
