/// H.265 levels of the Main tier and their limits (Tables A.8 and A.9), for choosing the smallest level a
/// stream fits; general_level_idc is 30 times the level.
struct H265Level: Sendable {
    let idc: Int
    /// Luma samples per picture (MaxLumaPs).
    let maxLumaPs: Int
    /// Luma samples per second (MaxLumaSr).
    let maxLumaSr: Int
    /// kbit/s, Main tier (MaxBR; CpbBrVclFactor 1000 for Main and Main 10).
    let maxBR: Int

    static let all: [H265Level] = [
        .init(idc: 30, maxLumaPs: 36_864, maxLumaSr: 552_960, maxBR: 128),
        .init(idc: 60, maxLumaPs: 122_880, maxLumaSr: 3_686_400, maxBR: 1_500),
        .init(idc: 63, maxLumaPs: 245_760, maxLumaSr: 7_372_800, maxBR: 3_000),
        .init(idc: 90, maxLumaPs: 552_960, maxLumaSr: 16_588_800, maxBR: 6_000),
        .init(idc: 93, maxLumaPs: 983_040, maxLumaSr: 33_177_600, maxBR: 10_000),
        .init(idc: 120, maxLumaPs: 2_228_224, maxLumaSr: 66_846_720, maxBR: 12_000),
        .init(idc: 123, maxLumaPs: 2_228_224, maxLumaSr: 133_693_440, maxBR: 20_000),
        .init(idc: 150, maxLumaPs: 8_912_896, maxLumaSr: 267_386_880, maxBR: 25_000),
        .init(idc: 153, maxLumaPs: 8_912_896, maxLumaSr: 534_773_760, maxBR: 40_000),
        .init(idc: 156, maxLumaPs: 8_912_896, maxLumaSr: 1_069_547_520, maxBR: 60_000),
        .init(idc: 180, maxLumaPs: 35_651_584, maxLumaSr: 1_069_547_520, maxBR: 60_000),
        .init(idc: 183, maxLumaPs: 35_651_584, maxLumaSr: 2_139_095_040, maxBR: 120_000),
        .init(idc: 186, maxLumaPs: 35_651_584, maxLumaSr: 4_278_190_080, maxBR: 240_000),
    ]

    /// MaxDpbSize (A.4.2): 6 pictures at the level's largest size, up to 16 for a quarter of it.
    func maxDpbSize(lumaSamples: Int) -> Int {
        if lumaSamples <= maxLumaPs >> 2 { return 16 }
        if lumaSamples <= maxLumaPs >> 1 { return 12 }
        if lumaSamples <= (3 * maxLumaPs) >> 2 { return 8 }
        return 6
    }

    /// A.4.1: picture size, each side at most sqrt(8 * MaxLumaPs), sample rate, bit rate, and the DPB.
    func fits(width: Int, height: Int, framesPerSecond: Double, bitsPerSecond: Int, dpbPictures: Int) -> Bool {
        let samples = width * height
        let side = Int((8 * Double(maxLumaPs)).squareRoot())
        return samples <= maxLumaPs && width <= side && height <= side && Double(samples) * framesPerSecond <= Double(maxLumaSr)
            && bitsPerSecond <= maxBR * 1000 && dpbPictures <= maxDpbSize(lumaSamples: samples)
    }

    static func smallest(width: Int, height: Int, framesPerSecond: Double, bitsPerSecond: Int, dpbPictures: Int) -> H265Level? {
        all.first { $0.fits(width: width, height: height, framesPerSecond: framesPerSecond, bitsPerSecond: bitsPerSecond, dpbPictures: dpbPictures) }
    }
}
