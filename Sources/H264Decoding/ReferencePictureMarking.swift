import H264Bitstream

/// The decoded reference picture marking process (8.2.5) for frames.
enum ReferencePictureMarking {
    /// FrameNumWrap of every short-term frame relative to the current frame_num (8.2.4.1).
    static func updateFrameNumWrap(_ dpb: inout DecodedPictureBuffer, currentFrameNum: Int, maxFrameNum: Int) {
        dpb.updateAll { picture in
            if picture.reference == .shortTerm {
                picture.frameNumWrap = picture.frameNum > currentFrameNum ? picture.frameNum - maxFrameNum : picture.frameNum
            }
        }
    }

    /// Sliding window (8.2.5.3): when the references fill max_num_ref_frames, the short-term frame with
    /// the smallest FrameNumWrap is no longer a reference.
    static func slidingWindow(_ dpb: inout DecodedPictureBuffer, maxNumRefFrames: Int) {
        let references = dpb.referenceFrames
        guard references.count >= max(maxNumRefFrames, 1) else { return }
        if let oldest = dpb.shortTermFrames.min(by: { $0.frameNumWrap < $1.frameNumWrap }) {
            dpb.update(oldest.id) { $0.reference = .unused }
        }
    }

    /// Adaptive marking (8.2.5.4). `current` is the picture being decoded (not yet in the DPB); MMCO 6
    /// marks it long-term. Returns MaxLongTermFrameIdx afterwards (nil for "no long-term frame indices")
    /// and whether MMCO 5 occurred. Operations naming pictures that are not there are reported in `problems`.
    static func adaptive(_ dpb: inout DecodedPictureBuffer, operations: [MemoryManagementControlOperation],
                         current: inout DecodedPicture, currPicNum: Int,
                         maxLongTermFrameIdx: Int?, problems: inout [String]) -> (maxLongTermFrameIdx: Int?, mmco5: Bool) {
        var maxIdx = maxLongTermFrameIdx
        var mmco5 = false
        for op in operations {
            switch op.operation {
            case 1:  // 8.2.5.4.1: short-term -> unused
                let picNumX = currPicNum - (op.differenceOfPicNumsMinus1 + 1)
                if let p = dpb.shortTermFrames.first(where: { $0.picNum == picNumX }) {
                    dpb.update(p.id) { $0.reference = .unused }
                } else {
                    problems.append("MMCO 1: no short-term picture with PicNum \(picNumX)")
                }
            case 2:  // 8.2.5.4.2: long-term -> unused
                if let p = dpb.longTermFrames.first(where: { $0.longTermPicNum == op.longTermPicNum }) {
                    dpb.update(p.id) { $0.reference = .unused }
                } else {
                    problems.append("MMCO 2: no long-term picture with LongTermPicNum \(op.longTermPicNum)")
                }
            case 3:  // 8.2.5.4.3: short-term -> long-term with LongTermFrameIdx
                let picNumX = currPicNum - (op.differenceOfPicNumsMinus1 + 1)
                if let holder = dpb.longTermFrames.first(where: { $0.longTermFrameIdx == op.longTermFrameIdx }) {
                    dpb.update(holder.id) { $0.reference = .unused }
                }
                if let p = dpb.shortTermFrames.first(where: { $0.picNum == picNumX }) {
                    dpb.update(p.id) { $0.reference = .longTerm; $0.longTermFrameIdx = op.longTermFrameIdx }
                } else {
                    problems.append("MMCO 3: no short-term picture with PicNum \(picNumX)")
                }
            case 4:  // 8.2.5.4.4: MaxLongTermFrameIdx
                maxIdx = op.maxLongTermFrameIdxPlus1 == 0 ? nil : op.maxLongTermFrameIdxPlus1 - 1
                dpb.updateAll { p in
                    if p.reference == .longTerm && (maxIdx.map { p.longTermFrameIdx > $0 } ?? true) { p.reference = .unused }
                }
            case 5:  // 8.2.5.4.5: everything unused
                dpb.updateAll { $0.reference = .unused }
                maxIdx = nil
                mmco5 = true
            case 6:  // 8.2.5.4.6: current -> long-term
                if let holder = dpb.longTermFrames.first(where: { $0.longTermFrameIdx == op.longTermFrameIdx }) {
                    dpb.update(holder.id) { $0.reference = .unused }
                }
                current.reference = .longTerm
                current.longTermFrameIdx = op.longTermFrameIdx
            default:
                break
            }
        }
        return (maxIdx, mmco5)
    }
}
