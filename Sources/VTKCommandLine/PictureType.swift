import H264Bitstream

/// The picture type of a coded H.264 sample, for plots: I, P or B.
enum PictureType {
    /// From slice_type of the first slice (7.3.3: first_mb_in_slice then slice_type, both ue(v); Table 7-6,
    /// taken modulo 5: 0 P, 1 B, 2 I, 3 SP, 4 SI); "?" when the sample has no readable slice.
    static func of(_ sample: SampleBuffer) -> Character {
        guard let units = try? sample.nalUnits(),
              let slice = units.first(where: { $0.type == .nonIDRSlice || $0.type == .idrSlice }) else { return "?" }
        var reader = BitReader(EmulationPrevention.remove(slice.bytes.dropFirst().prefix(16)))
        guard (try? reader.ue()) != nil, let type = try? reader.ue() else { return "?" }
        switch type % 5 {
        case 0, 3: return "P"
        case 1: return "B"
        default: return "I"
        }
    }
}
