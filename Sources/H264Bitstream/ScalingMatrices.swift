/// The scaling matrices in force for a picture, after the fall-back rules of Table 7-2: six 4x4 and
/// six 8x8 lists, each in zig-zag (coding) order. Only the first two 8x8 lists matter for 4:2:0.
public struct ScalingMatrices: Hashable, Sendable {
    public var list4x4: [[UInt8]]
    public var list8x8: [[UInt8]]

    public static let flat = ScalingMatrices(list4x4: Array(repeating: ScalingList.flat4x4, count: 6),
                                             list8x8: Array(repeating: ScalingList.flat8x8, count: 6))

    public init(list4x4: [[UInt8]], list8x8: [[UInt8]]) {
        self.list4x4 = list4x4
        self.list8x8 = list8x8
    }

    /// The matrices of a sequence (7.4.2.1.1, fall-back rule A).
    public init(sps: SequenceParameterSet) {
        guard sps.seqScalingMatrixPresentFlag else { self = .flat; return }
        self = Self.resolve(coded: sps.seqScalingLists, fallback: nil)
    }

    /// The matrices of a picture (7.4.2.2): the PPS lists with fall-back rule A when the SPS has no
    /// matrix, rule B (the sequence's lists) when it has; the sequence's lists when the PPS has none.
    public init(sps: SequenceParameterSet, pps: PictureParameterSet) {
        let sequence = ScalingMatrices(sps: sps)
        guard pps.picScalingMatrixPresentFlag else { self = sequence; return }
        var coded = pps.picScalingLists
        // 8x8 lists absent because transform_8x8_mode_flag is 0 fall back like absent ones.
        while coded.count < 12 { coded.append(.notPresent) }
        self = Self.resolve(coded: coded, fallback: sps.seqScalingMatrixPresentFlag ? sequence : nil)
    }

    /// Table 7-2. `fallback` nil means rule A (defaults), else rule B (sequence-level lists).
    static func resolve(coded: [CodedScalingList], fallback: ScalingMatrices?) -> ScalingMatrices {
        var four: [[UInt8]] = []
        var eight: [[UInt8]] = []
        for i in 0..<6 {
            switch i < coded.count ? coded[i] : .notPresent {
            case .explicit(let values): four.append(values)
            case .useDefault: four.append(i < 3 ? ScalingList.default4x4Intra : ScalingList.default4x4Inter)
            case .notPresent:
                if i == 0 || i == 3 {
                    four.append(fallback?.list4x4[i] ?? (i == 0 ? ScalingList.default4x4Intra : ScalingList.default4x4Inter))
                } else {
                    four.append(four[i - 1])
                }
            }
        }
        for k in 0..<6 {
            let i = k + 6
            switch i < coded.count ? coded[i] : .notPresent {
            case .explicit(let values): eight.append(values)
            case .useDefault: eight.append(k % 2 == 0 ? ScalingList.default8x8Intra : ScalingList.default8x8Inter)
            case .notPresent:
                if k < 2 {
                    eight.append(fallback?.list8x8[k] ?? (k == 0 ? ScalingList.default8x8Intra : ScalingList.default8x8Inter))
                } else {
                    eight.append(eight[k - 2])
                }
            }
        }
        return ScalingMatrices(list4x4: four, list8x8: eight)
    }

    /// Zig-zag scan position -> raster index, 4x4 frame scan (Table 8-12).
    public static let zigzag4x4: [Int] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]
    /// Zig-zag scan position -> raster index, 8x8 frame scan (Table 8-13).
    public static let zigzag8x8: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// A list in zig-zag order rearranged into raster order.
    public static func raster(_ zigzag: [UInt8]) -> [UInt8] {
        let scan = zigzag.count == 16 ? zigzag4x4 : zigzag8x8
        var out = [UInt8](repeating: 0, count: zigzag.count)
        for (position, value) in zigzag.enumerated() { out[scan[position]] = value }
        return out
    }

    /// A list in raster order rearranged into zig-zag (coding) order.
    public static func zigzag(_ raster: [UInt8]) -> [UInt8] {
        let scan = raster.count == 16 ? zigzag4x4 : zigzag8x8
        return scan.map { raster[$0] }
    }
}
