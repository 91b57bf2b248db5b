/// Scaling lists (7.3.2.1.1.1) and the default matrices of Table 7-3 and 7-4.
public enum ScalingList {
    /// Zig-zag-ordered Default_4x4_Intra (Table 7-3).
    public static let default4x4Intra: [UInt8] = [6, 13, 13, 20, 20, 20, 28, 28, 28, 28, 32, 32, 32, 37, 37, 42]
    /// Zig-zag-ordered Default_4x4_Inter (Table 7-3).
    public static let default4x4Inter: [UInt8] = [10, 14, 14, 20, 20, 20, 24, 24, 24, 24, 27, 27, 27, 30, 30, 34]
    /// Zig-zag-ordered Default_8x8_Intra (Table 7-4).
    public static let default8x8Intra: [UInt8] = [
        6, 10, 10, 13, 11, 13, 16, 16, 16, 16, 18, 18, 18, 18, 18, 23, 23, 23, 23, 23, 23, 25, 25, 25, 25, 25, 25, 25, 27, 27, 27, 27,
        27, 27, 27, 27, 29, 29, 29, 29, 29, 29, 29, 31, 31, 31, 31, 31, 31, 33, 33, 33, 33, 33, 36, 36, 36, 36, 38, 38, 38, 40, 40, 42,
    ]
    /// Zig-zag-ordered Default_8x8_Inter (Table 7-4).
    public static let default8x8Inter: [UInt8] = [
        9, 13, 13, 15, 13, 15, 17, 17, 17, 17, 19, 19, 19, 19, 19, 21, 21, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 22, 24, 24, 24, 24,
        24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 27, 27, 27, 27, 27, 27, 28, 28, 28, 28, 28, 30, 30, 30, 30, 32, 32, 32, 33, 33, 35,
    ]
    public static let flat4x4 = [UInt8](repeating: 16, count: 16)
    public static let flat8x8 = [UInt8](repeating: 16, count: 64)
}

/// One scaling list as it was coded: absent, "use the default matrix" (useDefaultScalingMatrixFlag),
/// or explicit values in zig-zag (frame) scan order.
public enum CodedScalingList: Hashable, Sendable {
    case notPresent
    case useDefault
    case explicit([UInt8])

    /// scaling_list() (7.3.2.1.1.1). Values come out in the order they are coded (zig-zag scan).
    static func read(_ r: inout BitReader, size: Int) throws(BitstreamError) -> CodedScalingList {
        var list = [UInt8](repeating: 0, count: size)
        var lastScale = 8
        var nextScale = 8
        for j in 0..<size {
            if nextScale != 0 {
                let delta = try r.se(in: -128...127, "delta_scale")
                nextScale = (lastScale + delta + 256) % 256
                if j == 0 && nextScale == 0 { return .useDefault }
            }
            list[j] = UInt8(nextScale == 0 ? lastScale : nextScale)
            lastScale = Int(list[j])
        }
        return .explicit(list)
    }

    /// Writes scaling_list(); `.notPresent` writes nothing (the caller writes the present flag).
    func write(_ w: inout BitWriter, size: Int) {
        switch self {
        case .notPresent:
            return
        case .useDefault:
            w.se(-8)  // nextScale becomes 0 at j == 0
        case .explicit(let values):
            // The shortest coding: stop (delta to 0) once the rest repeats the last value.
            var end = size
            while end > 1 && values[end - 1] == values[end - 2] { end -= 1 }
            var last = 8
            for j in 0..<size {
                if j == end && end < size {
                    var delta = (0 - last) % 256
                    if delta > 127 { delta -= 256 }
                    if delta < -128 { delta += 256 }
                    w.se(delta)
                    return
                }
                var delta = (Int(values[j]) - last) % 256
                if delta > 127 { delta -= 256 }
                if delta < -128 { delta += 256 }
                w.se(delta)
                last = Int(values[j])
            }
        }
    }
}
