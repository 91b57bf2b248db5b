import H264Bitstream
import VideoDecoding

/// The decoded reference picture marking process (8.2.5) for frames and fields.
enum ReferencePictureMarking {
    /// FrameNumWrap of every store with a short-term field relative to the current frame_num (8.2.4.1).
    static func updateFrameNumWrap(_ dpb: inout H264DecodedPictureBuffer, currentFrameNum: Int, maxFrameNum: Int) {
        dpb.updateAll { picture in
            if picture.hasShortTermField {
                picture.frameNumWrap = picture.frameNum > currentFrameNum ? picture.frameNum - maxFrameNum : picture.frameNum
            }
        }
    }

    /// Sliding window (8.2.5.3): when the frame stores with a reference field fill max_num_ref_frames, the
    /// short-term frame, field pair or lone field with the smallest FrameNumWrap is no longer a reference
    /// (both its fields). `current` (the store of a first field being completed) is not a candidate.
    static func slidingWindow(_ dpb: inout H264DecodedPictureBuffer, maxNumRefFrames: Int, excluding current: PictureID? = nil) {
        guard dpb.referencePictureCount >= max(maxNumRefFrames, 1) else { return }
        if let oldest = dpb.oldestShortTermStore(excluding: current) {
            dpb.update(oldest.id) { $0.topReference = .unused; $0.bottomReference = .unused }
        }
    }

    /// Adaptive marking (8.2.5.4) for a frame or a field (`structure`). `current` is the store of the
    /// picture being decoded: not yet in the DPB for a frame or first field, in it for a second field
    /// (changes to it go to both). MMCO 6 marks the current picture long-term. Returns MaxLongTermFrameIdx
    /// afterwards (nil for "no long-term frame indices") and whether MMCO 5 occurred. Operations naming
    /// pictures that are not there are reported in `problems`.
    static func adaptive(_ dpb: inout H264DecodedPictureBuffer, operations: [MemoryManagementControlOperation],
                         current: inout DecodedPicture, structure: PictureStructure, currPicNum: Int,
                         maxLongTermFrameIdx: Int?, problems: inout [String]) -> (maxLongTermFrameIdx: Int?, mmco5: Bool) {
        var maxIdx = maxLongTermFrameIdx
        var mmco5 = false
        // Applies a change to a store, in the DPB and in `current` when it is the current picture's store.
        func change(_ id: PictureID, _ body: (inout DecodedPicture) -> Void) {
            dpb.update(id, body)
            if id == current.id { body(&current) }
        }
        func unmarkAll(_ store: DecodedPicture) {
            change(store.id) { $0.topReference = .unused; $0.bottomReference = .unused }
        }
        for op in operations {
            switch op.operation {
            case 1:  // 8.2.5.4.1: short-term picture -> unused
                let picNumX = currPicNum - (op.differenceOfPicNumsMinus1 + 1)
                if let p = ReferencePictureLists.shortTerm(picNum: picNumX, structure: structure, dpb: dpb) {
                    change(p.id) { $0.setReference(.unused, of: p.structure) }
                } else {
                    problems.append("MMCO 1: no short-term picture with PicNum \(picNumX)")
                }
            case 2:  // 8.2.5.4.2: long-term picture -> unused
                if let p = ReferencePictureLists.longTerm(longTermPicNum: op.longTermPicNum, structure: structure, dpb: dpb) {
                    change(p.id) { $0.setReference(.unused, of: p.structure) }
                } else {
                    problems.append("MMCO 2: no long-term picture with LongTermPicNum \(op.longTermPicNum)")
                }
            case 3:  // 8.2.5.4.3: short-term picture -> long-term with LongTermFrameIdx
                let picNumX = currPicNum - (op.differenceOfPicNumsMinus1 + 1)
                let target = ReferencePictureLists.shortTerm(picNum: picNumX, structure: structure, dpb: dpb)
                // The index leaves any other frame, field pair or field holding it; the other field of the
                // target's own pair keeps it (the pair shares one LongTermFrameIdx).
                for holder in dpb.longTermStores where holder.longTermFrameIdx == op.longTermFrameIdx && holder.id != target?.id {
                    unmarkAll(holder)
                }
                if let target {
                    change(target.id) { store in
                        if store.hasLongTermField && store.longTermFrameIdx != op.longTermFrameIdx {
                            // The other field has another index: it cannot keep it in a pair (8.2.5.4.3).
                            store.setReference(.unused, of: target.structure.opposite)
                        }
                        store.setReference(.longTerm, of: target.structure)
                        store.longTermFrameIdx = op.longTermFrameIdx
                    }
                } else {
                    problems.append("MMCO 3: no short-term picture with PicNum \(picNumX)")
                }
            case 4:  // 8.2.5.4.4: MaxLongTermFrameIdx
                maxIdx = op.maxLongTermFrameIdxPlus1 == 0 ? nil : op.maxLongTermFrameIdxPlus1 - 1
                for store in dpb.longTermStores where maxIdx.map({ store.longTermFrameIdx > $0 }) ?? true {
                    change(store.id) { p in
                        if p.topReference == .longTerm { p.topReference = .unused }
                        if p.bottomReference == .longTerm { p.bottomReference = .unused }
                    }
                }
            case 5:  // 8.2.5.4.5: everything unused
                for store in dpb.pictures { unmarkAll(store) }
                maxIdx = nil
                mmco5 = true
            case 6:  // 8.2.5.4.6: current -> long-term
                for holder in dpb.longTermStores where holder.longTermFrameIdx == op.longTermFrameIdx && holder.id != current.id {
                    unmarkAll(holder)
                }
                if current.hasLongTermField && current.longTermFrameIdx != op.longTermFrameIdx {
                    change(current.id) { $0.setReference(.unused, of: structure.opposite) }
                }
                change(current.id) { $0.setReference(.longTerm, of: structure); $0.longTermFrameIdx = op.longTermFrameIdx }
            default:
                break
            }
        }
        return (maxIdx, mmco5)
    }
}
