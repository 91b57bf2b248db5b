import H265Bitstream
import VideoDecoding

/// The reference picture set of the current picture (8.3.2): the five lists of pictures, as DPB ids
/// (nil where no reference picture was found), and the marking it implies.
public struct H265ReferencePictureSet: Hashable, Sendable {
    public var stCurrBefore: [PictureID?] = []
    public var stCurrAfter: [PictureID?] = []
    public var stFoll: [PictureID?] = []
    public var ltCurr: [PictureID?] = []
    public var ltFoll: [PictureID?] = []
    /// The POCs asked for in the Curr lists that no picture in the DPB has.
    public var missing: [Int] = []

    public init() {}

    /// Derives the set for `header` (first slice segment of the current picture, PicOrderCntVal `poc`) and
    /// marks the pictures of `dpb` as 8.3.2 says: long-term ones, and those left out as unused.
    public static func apply(_ header: H265SliceSegmentHeader, poc: Int, sps: H265SequenceParameterSet,
                             dpb: inout H265DecodedPictureBuffer) -> H265ReferencePictureSet {
        var set = H265ReferencePictureSet()
        if header.nalUnitType.isIDR {
            dpb.updateAll { $0.reference = .unused }
            return set
        }
        let maxLsb = sps.maxPicOrderCntLsb
        let rps = header.shortTermRefPicSet
        var pocStCurrBefore: [Int] = [], pocStCurrAfter: [Int] = [], pocStFoll: [Int] = []
        for (delta, used) in zip(rps.deltaPocS0, rps.usedByCurrPicS0) {
            if used { pocStCurrBefore.append(poc + delta) } else { pocStFoll.append(poc + delta) }
        }
        for (delta, used) in zip(rps.deltaPocS1, rps.usedByCurrPicS1) {
            if used { pocStCurrAfter.append(poc + delta) } else { pocStFoll.append(poc + delta) }
        }
        var lt: [(poc: Int, full: Bool, used: Bool)] = []
        for entry in header.longTermEntries {
            var value = entry.pocLsbLt
            if entry.deltaPocMsbPresentFlag { value += poc - entry.deltaPocMsbCycleLt * maxLsb - (poc & (maxLsb - 1)) }
            lt.append((value, entry.deltaPocMsbPresentFlag, entry.usedByCurrPicLt))
        }
        var inSet = Set<PictureID>()
        // 1. Long-term: any reference picture whose POC (or its LSBs) matches.
        for entry in lt {
            let found = dpb.pictures.first { $0.isReference && (entry.full ? $0.poc == entry.poc : ($0.poc & (maxLsb - 1)) == entry.poc) }?.id
            if entry.used { set.ltCurr.append(found) } else { set.ltFoll.append(found) }
            if let found { inSet.insert(found) } else if entry.used { set.missing.append(entry.poc) }
        }
        // 2. Short-term: short-term reference pictures with that POC.
        func shortTerm(_ value: Int) -> PictureID? {
            dpb.pictures.first { $0.reference == .shortTerm && $0.poc == value && !inSet.contains($0.id) }?.id
        }
        for value in pocStCurrBefore {
            let found = shortTerm(value)
            set.stCurrBefore.append(found)
            if found == nil { set.missing.append(value) }
        }
        for value in pocStCurrAfter {
            let found = shortTerm(value)
            set.stCurrAfter.append(found)
            if found == nil { set.missing.append(value) }
        }
        for value in pocStFoll { set.stFoll.append(shortTerm(value)) }
        let longTerm = Set((set.ltCurr + set.ltFoll).compactMap { $0 })
        let shortTerm = Set((set.stCurrBefore + set.stCurrAfter + set.stFoll).compactMap { $0 })
        // 3. Marking.
        dpb.updateAll { picture in
            if longTerm.contains(picture.id) {
                picture.reference = .longTerm
            } else if !shortTerm.contains(picture.id) {
                picture.reference = .unused
            }
        }
        return set
    }

    /// The pictures the current picture may use (the Curr lists), for RefPicList construction.
    public var numPicTotalCurr: Int { stCurrBefore.count + stCurrAfter.count + ltCurr.count }
}
