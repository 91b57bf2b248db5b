/// H.264 levels and their limits (Table A-1), for choosing the smallest level a stream fits.
struct H264Level: Sendable {
    let idc: Int
    /// Macroblocks per second.
    let maxMBPS: Int
    /// Macroblocks per frame.
    let maxFS: Int
    /// kbit/s for Baseline and Main; High allows 1.25 times this (Table A-2, cpbBrVclFactor).
    let maxBR: Int
    /// Macroblocks in the decoded picture buffer (MaxDpbMbs).
    let maxDpbMbs: Int

    static let all: [H264Level] = [
        .init(idc: 10, maxMBPS: 1485, maxFS: 99, maxBR: 64, maxDpbMbs: 396),
        .init(idc: 11, maxMBPS: 3000, maxFS: 396, maxBR: 192, maxDpbMbs: 900),
        .init(idc: 12, maxMBPS: 6000, maxFS: 396, maxBR: 384, maxDpbMbs: 2376),
        .init(idc: 13, maxMBPS: 11880, maxFS: 396, maxBR: 768, maxDpbMbs: 2376),
        .init(idc: 20, maxMBPS: 11880, maxFS: 396, maxBR: 2000, maxDpbMbs: 2376),
        .init(idc: 21, maxMBPS: 19800, maxFS: 792, maxBR: 4000, maxDpbMbs: 4752),
        .init(idc: 22, maxMBPS: 20250, maxFS: 1620, maxBR: 4000, maxDpbMbs: 8100),
        .init(idc: 30, maxMBPS: 40500, maxFS: 1620, maxBR: 10000, maxDpbMbs: 8100),
        .init(idc: 31, maxMBPS: 108000, maxFS: 3600, maxBR: 14000, maxDpbMbs: 18000),
        .init(idc: 32, maxMBPS: 216000, maxFS: 5120, maxBR: 20000, maxDpbMbs: 20480),
        .init(idc: 40, maxMBPS: 245760, maxFS: 8192, maxBR: 20000, maxDpbMbs: 32768),
        .init(idc: 41, maxMBPS: 245760, maxFS: 8192, maxBR: 50000, maxDpbMbs: 32768),
        .init(idc: 42, maxMBPS: 522240, maxFS: 8704, maxBR: 50000, maxDpbMbs: 34816),
        .init(idc: 50, maxMBPS: 589824, maxFS: 22080, maxBR: 135000, maxDpbMbs: 110400),
        .init(idc: 51, maxMBPS: 983040, maxFS: 36864, maxBR: 240000, maxDpbMbs: 184320),
        .init(idc: 52, maxMBPS: 2073600, maxFS: 36864, maxBR: 240000, maxDpbMbs: 184320),
    ]

    /// Whether a stream of this many macroblocks a side, frames per second and bits per second fits
    /// (A.3.1: frame size, rate, each side at most sqrt(8 * MaxFS), and the reference frames within MaxDpbMbs).
    func fits(widthInMbs: Int, heightInMbs: Int, framesPerSecond: Double, bitsPerSecond: Int, high: Bool, dpbFrames: Int = 1) -> Bool {
        let fs = widthInMbs * heightInMbs
        let side = Int((8 * Double(maxFS)).squareRoot())
        let br = maxBR * (high ? 1250 : 1000)
        return fs <= maxFS && widthInMbs <= side && heightInMbs <= side
            && Double(fs) * framesPerSecond <= Double(maxMBPS) && bitsPerSecond <= br && dpbFrames * fs <= maxDpbMbs
    }

    /// The smallest level that fits, or nil when none does.
    static func smallest(widthInMbs: Int, heightInMbs: Int, framesPerSecond: Double, bitsPerSecond: Int, high: Bool, dpbFrames: Int = 1) -> H264Level? {
        all.first { $0.fits(widthInMbs: widthInMbs, heightInMbs: heightInMbs, framesPerSecond: framesPerSecond, bitsPerSecond: bitsPerSecond,
                            high: high, dpbFrames: dpbFrames) }
    }
}
