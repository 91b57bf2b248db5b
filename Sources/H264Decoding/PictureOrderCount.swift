import H264Bitstream
import VideoDecoding

/// The decoding process for picture order count (8.2.1) for frames and fields, types 0, 1 and 2.
///
/// Keeps the state carried from picture to picture (prevPicOrderCntMsb/Lsb, prevFrameNumOffset,
/// prevFrameNum) and computes TopFieldOrderCnt and BottomFieldOrderCnt of each new picture.
public struct PictureOrderCount: Sendable {
    // 8.2.1.1 state: of the previous reference picture.
    private var prevPicOrderCntMsb = 0
    private var prevPicOrderCntLsb = 0
    // 8.2.1.2/8.2.1.3 state: of the previous picture.
    private var prevFrameNumOffset = 0
    private var prevFrameNum = 0
    private var previousHadMMCO5 = false
    private var previousReferenceHadMMCO5 = false
    private var previousReferenceTopFieldOrderCnt = 0
    private var previousReferenceWasBottomField = false

    public init() {}

    /// The POC of the current picture: (TopFieldOrderCnt, BottomFieldOrderCnt), and the values that
    /// must be remembered once the picture is decoded (call ``pictureDecoded``). A field has only its own
    /// count; the other is left 0.
    public struct Result: Sendable {
        public var topFieldOrderCnt: Int
        public var bottomFieldOrderCnt: Int
        var picOrderCntMsb = 0
        var frameNumOffset = 0
    }

    public func compute(slice: SliceHeader, sps: SequenceParameterSet) -> Result {
        let idr = slice.idrPicFlag
        switch sps.picOrderCntType {
        case 0:
            // 8.2.1.1
            var prevMsb = prevPicOrderCntMsb, prevLsb = prevPicOrderCntLsb
            if idr {
                prevMsb = 0; prevLsb = 0
            } else if previousReferenceHadMMCO5 {
                // A picture with MMCO 5: its TopFieldOrderCnt after the MMCO 5 adjustment (8.2.1), or 0 after
                // a bottom field.
                prevMsb = 0; prevLsb = previousReferenceWasBottomField ? 0 : previousReferenceTopFieldOrderCnt
            }
            let lsb = slice.picOrderCntLsb
            let msb = PicOrderCntMsb.derive(lsb: lsb, previousLsb: prevLsb, previousMsb: prevMsb, maxLsb: sps.maxPicOrderCntLsb)
            switch PictureStructure(slice) {
            case .frame: return Result(topFieldOrderCnt: msb + lsb, bottomFieldOrderCnt: msb + lsb + slice.deltaPicOrderCntBottom, picOrderCntMsb: msb)
            case .topField: return Result(topFieldOrderCnt: msb + lsb, bottomFieldOrderCnt: 0, picOrderCntMsb: msb)
            case .bottomField: return Result(topFieldOrderCnt: 0, bottomFieldOrderCnt: msb + lsb, picOrderCntMsb: msb)
            }
        case 1:
            // 8.2.1.2
            let offset = frameNumOffset(slice: slice, sps: sps)
            let cycle = sps.offsetForRefFrame.count
            var absFrameNum = cycle != 0 ? offset + slice.frameNum : 0
            if slice.nalRefIdc == 0 && absFrameNum > 0 { absFrameNum -= 1 }
            var expected = 0
            if absFrameNum > 0 {
                let expectedDeltaPerCycle = sps.offsetForRefFrame.reduce(0, +)
                let cycleCount = (absFrameNum - 1) / cycle
                let inCycle = (absFrameNum - 1) % cycle
                expected = cycleCount * expectedDeltaPerCycle
                for i in 0...inCycle { expected += sps.offsetForRefFrame[i] }
            }
            if slice.nalRefIdc == 0 { expected += sps.offsetForNonRefPic }
            switch PictureStructure(slice) {
            case .frame:
                let top = expected + slice.deltaPicOrderCnt[0]
                let bottom = top + sps.offsetForTopToBottomField + slice.deltaPicOrderCnt[1]
                return Result(topFieldOrderCnt: top, bottomFieldOrderCnt: bottom, frameNumOffset: offset)
            case .topField:
                return Result(topFieldOrderCnt: expected + slice.deltaPicOrderCnt[0], bottomFieldOrderCnt: 0, frameNumOffset: offset)
            case .bottomField:
                return Result(topFieldOrderCnt: 0, bottomFieldOrderCnt: expected + sps.offsetForTopToBottomField + slice.deltaPicOrderCnt[0],
                              frameNumOffset: offset)
            }
        default:
            // 8.2.1.3
            let offset = frameNumOffset(slice: slice, sps: sps)
            let temp = idr ? 0 : (slice.nalRefIdc == 0 ? 2 * (offset + slice.frameNum) - 1 : 2 * (offset + slice.frameNum))
            let structure = PictureStructure(slice)
            return Result(topFieldOrderCnt: structure == .bottomField ? 0 : temp, bottomFieldOrderCnt: structure == .topField ? 0 : temp,
                          frameNumOffset: offset)
        }
    }

    /// FrameNumOffset (8-6, 8-11).
    private func frameNumOffset(slice: SliceHeader, sps: SequenceParameterSet) -> Int {
        if slice.idrPicFlag { return 0 }
        let prevOffset = previousHadMMCO5 ? 0 : prevFrameNumOffset
        let previousFrameNum = previousHadMMCO5 ? 0 : prevFrameNum
        return previousFrameNum > slice.frameNum ? prevOffset + sps.maxFrameNum : prevOffset
    }

    /// Remembers what the next picture's POC depends on. `picture` is the decoded picture after
    /// reference marking (its POC already adjusted when it had MMCO 5).
    public mutating func pictureDecoded(_ result: Result, slice: SliceHeader, picture: DecodedPicture) {
        prevFrameNumOffset = result.frameNumOffset
        prevFrameNum = slice.frameNum
        previousHadMMCO5 = picture.hadMMCO5
        if slice.nalRefIdc != 0 {
            prevPicOrderCntMsb = result.picOrderCntMsb
            prevPicOrderCntLsb = slice.picOrderCntLsb
            previousReferenceHadMMCO5 = picture.hadMMCO5
            previousReferenceTopFieldOrderCnt = picture.topFieldOrderCnt
            previousReferenceWasBottomField = slice.fieldPicFlag && slice.bottomFieldFlag
        }
    }

    /// For a non-existing frame made for a frame_num gap (8.2.5.2): it is a reference frame with
    /// that frame_num; types 1 and 2 derive their POC state from frame_num.
    public mutating func gapFrameInferred(frameNum: Int, sps: SequenceParameterSet) -> Result {
        var slice = SliceHeader()
        slice.nalUnitType = .nonIDRSlice
        slice.nalRefIdc = 1
        slice.frameNum = frameNum
        var result = compute(slice: slice, sps: sps)
        if sps.picOrderCntType == 0 {
            // No POC can be inferred; keep the state as it was (the frame is never output or used in B lists by POC).
            result = Result(topFieldOrderCnt: 0, bottomFieldOrderCnt: 0, picOrderCntMsb: prevPicOrderCntMsb)
            prevFrameNum = frameNum
            return result
        }
        prevFrameNumOffset = result.frameNumOffset
        prevFrameNum = frameNum
        previousHadMMCO5 = false
        return result
    }
}
