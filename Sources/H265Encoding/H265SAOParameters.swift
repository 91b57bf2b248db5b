/// The sample adaptive offset of one CTB (7.3.8.3, 7.4.9.3): per colour component its SaoTypeIdx, band
/// position or edge offset class, and SaoOffsetVal[1...4]. Cb and Cr share the type and the class.
struct H265SAOParameters: Equatable, Sendable {
    /// SaoTypeIdx (Table 7-8).
    enum Kind: UInt8, Sendable {
        case off = 0, band = 1, edge = 2
    }

    struct Component: Equatable, Sendable {
        var kind = Kind.off
        /// sao_band_position (band offset).
        var bandPosition = 0
        /// SaoEoClass (edge offset): 0 horizontal, 1 vertical, 2 135°, 3 45° (Table 7-9).
        var eoClass = 0
        /// SaoOffsetVal[1...4] (7.4.9.3.2): edge categories 1, 2 positive and 3, 4 negative; band offsets of the
        /// four bands from sao_band_position. The scale is 1: log2OffsetScale (and the first edition's
        /// << (BitDepth − Min(BitDepth, 10))) is 0 at 8 and 10 bits.
        var offsets: [Int] = [0, 0, 0, 0]
    }

    /// Luma, Cb, Cr.
    var components = [Component](repeating: Component(), count: 3)

    static let off = H265SAOParameters()

    /// cMax of sao_offset_abs: (1 << (Min(bitDepth, 10) − 5)) − 1 (7.4.9.3.2).
    static func maxOffset(bitDepth: Int) -> Int { (1 << (min(bitDepth, 10) - 5)) - 1 }
}

/// How sao() codes a CTB's parameters: copied from the CTB to the left or above, or stated.
enum H265SAOSyntax: Equatable, Sendable {
    case mergeLeft
    case mergeUp
    case new(H265SAOParameters)
}
