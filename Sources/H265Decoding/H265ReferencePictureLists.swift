import H265Bitstream
import VideoDecoding

/// RefPicList0 and RefPicList1 of a slice (8.3.4), as DPB ids (nil for "no reference picture").
public struct H265ReferencePictureLists: Hashable, Sendable {
    public var list0: [PictureID?] = []
    public var list1: [PictureID?] = []

    public init() {}

    public init(slice: H265SliceSegmentHeader, rps: H265ReferencePictureSet) {
        guard slice.sliceType != .i, rps.numPicTotalCurr > 0 else { return }
        func build(_ order: [[PictureID?]], count: Int, modification: [Int]?) -> [PictureID?] {
            let all = order.flatMap { $0 }
            var temp: [PictureID?] = []
            let length = max(count, all.count)
            while temp.count < length { temp += all.prefix(length - temp.count) }
            return (0..<count).map { i in
                let index = modification.map { i < $0.count ? $0[i] : i } ?? i
                return index < temp.count ? temp[index] : nil
            }
        }
        list0 = build([rps.stCurrBefore, rps.stCurrAfter, rps.ltCurr], count: slice.numRefIdxL0ActiveMinus1 + 1,
                      modification: slice.refPicListModificationFlagL0 ? slice.listEntryL0 : nil)
        if slice.sliceType == .b {
            list1 = build([rps.stCurrAfter, rps.stCurrBefore, rps.ltCurr], count: slice.numRefIdxL1ActiveMinus1 + 1,
                          modification: slice.refPicListModificationFlagL1 ? slice.listEntryL1 : nil)
        }
    }
}
