import NALStream

/// st_ref_pic_set() (7.3.7) with its derived lists (7.4.8): the POC deltas of the short-term
/// reference pictures before (S0, negative) and after (S1, positive) the current picture.
public struct ShortTermReferencePictureSet: Hashable, Sendable {
    public var deltaPocS0: [Int] = []
    public var usedByCurrPicS0: [Bool] = []
    public var deltaPocS1: [Int] = []
    public var usedByCurrPicS1: [Bool] = []

    public init() {}

    public var numNegativePics: Int { deltaPocS0.count }
    public var numPositivePics: Int { deltaPocS1.count }
    public var numDeltaPocs: Int { deltaPocS0.count + deltaPocS1.count }
    /// Pictures of the set the current picture uses (its part of NumPicTotalCurr).
    public var numUsedByCurr: Int { usedByCurrPicS0.filter { $0 }.count + usedByCurrPicS1.filter { $0 }.count }

    /// Reads set `index` of `count` in the SPS (index == count: the slice header's own), predicting from
    /// `previous` (the SPS's sets).
    public init(_ r: inout SyntaxReader, index: Int, count: Int, previous: [ShortTermReferencePictureSet]) throws(BitstreamError) {
        var interPrediction = false
        if index != 0 { interPrediction = try r.flag("inter_ref_pic_set_prediction_flag") }
        if interPrediction {
            var deltaIdx = 1
            if index == count { deltaIdx = try r.ue("delta_idx_minus1", max: UInt32(max(index - 1, 0))) + 1 }
            let start = r.position
            let sign = try r.flag("delta_rps_sign")
            let abs = try r.ue("abs_delta_rps_minus1", max: 32767) + 1
            let deltaRps = sign ? -abs : abs
            let refIndex = index - deltaIdx
            guard refIndex >= 0, refIndex < previous.count else {
                throw .invalidValue(element: "delta_idx_minus1", value: Int64(deltaIdx - 1), bitOffset: start)
            }
            let ref = previous[refIndex]
            var used = [Bool](), useDelta = [Bool]()
            for j in 0...ref.numDeltaPocs {
                let u = try r.flag("used_by_curr_pic_flag[\(j)]")
                used.append(u)
                useDelta.append(u ? true : try r.flag("use_delta_flag[\(j)]"))
            }
            // (7-61)
            let n = ref.numNegativePics, all = ref.numDeltaPocs
            for j in stride(from: ref.numPositivePics - 1, through: 0, by: -1) {
                let d = ref.deltaPocS1[j] + deltaRps
                if d < 0 && useDelta[n + j] { deltaPocS0.append(d); usedByCurrPicS0.append(used[n + j]) }
            }
            if deltaRps < 0 && useDelta[all] { deltaPocS0.append(deltaRps); usedByCurrPicS0.append(used[all]) }
            for j in 0..<n {
                let d = ref.deltaPocS0[j] + deltaRps
                if d < 0 && useDelta[j] { deltaPocS0.append(d); usedByCurrPicS0.append(used[j]) }
            }
            // (7-62)
            for j in stride(from: n - 1, through: 0, by: -1) {
                let d = ref.deltaPocS0[j] + deltaRps
                if d > 0 && useDelta[j] { deltaPocS1.append(d); usedByCurrPicS1.append(used[j]) }
            }
            if deltaRps > 0 && useDelta[all] { deltaPocS1.append(deltaRps); usedByCurrPicS1.append(used[all]) }
            for j in 0..<ref.numPositivePics {
                let d = ref.deltaPocS1[j] + deltaRps
                if d > 0 && useDelta[n + j] { deltaPocS1.append(d); usedByCurrPicS1.append(used[n + j]) }
            }
            guard numDeltaPocs <= 16 else { throw .invalidValue(element: "NumDeltaPocs", value: Int64(numDeltaPocs), bitOffset: start) }
        } else {
            let negative = try r.ue("num_negative_pics", max: 16)
            let positive = try r.ue("num_positive_pics", max: UInt32(16 - negative))
            var poc = 0
            for i in 0..<negative {
                poc -= try r.ue("delta_poc_s0_minus1[\(i)]", max: 32767) + 1
                deltaPocS0.append(poc)
                usedByCurrPicS0.append(try r.flag("used_by_curr_pic_s0_flag[\(i)]"))
            }
            poc = 0
            for i in 0..<positive {
                poc += try r.ue("delta_poc_s1_minus1[\(i)]", max: 32767) + 1
                deltaPocS1.append(poc)
                usedByCurrPicS1.append(try r.flag("used_by_curr_pic_s1_flag[\(i)]"))
            }
        }
    }
}
