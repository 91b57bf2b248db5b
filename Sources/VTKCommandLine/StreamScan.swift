import H264Bitstream

/// A quick pass over an Annex B file before decoding it: the display sizes its SPSs give, in stream
/// order, and how many pictures it holds. Only SPSs are parsed; a picture is a slice NAL unit with
/// first_mb_in_slice 0 (its ue(v) code is the single bit 1, 7.3.3), so no slice header is read.
struct StreamScan {
    private(set) var sizes: [(width: Int, height: Int)] = []
    private(set) var pictures = 0
    /// Pictures before the first SPS with another size (a new size starts at an IDR, so in display
    /// order too); nil when the size never changes.
    private(set) var picturesBeforeChange: Int?

    init(path: String, command: String) throws(CommandFailure) {
        let input = try InputFile(path, command: command)
        var reader = AnnexBStreamReader()
        while true {
            let chunk = try input.read()
            for unit in chunk.isEmpty ? reader.finish() : reader.append(chunk) { take(unit) }
            if chunk.isEmpty { break }
        }
    }

    private mutating func take(_ unit: NALUnit) {
        let bytes = unit.bytes
        guard let first = bytes.first else { return }
        switch first & 0x1F {
        case 1, 5:
            if bytes.count > 1, bytes[bytes.startIndex + 1] & 0x80 != 0 { pictures += 1 }
        case 7:
            guard let sps = try? SequenceParameterSet(nalUnit: unit) else { return }
            if sizes.last.map({ $0 != (sps.displayWidth, sps.displayHeight) }) ?? true {
                if !sizes.isEmpty && picturesBeforeChange == nil { picturesBeforeChange = pictures }
                sizes.append((sps.displayWidth, sps.displayHeight))
            }
        default:
            break
        }
    }

    /// "640x360, then 320x180" when the size changes; nil when it does not.
    var sizeChange: String? {
        sizes.count > 1 ? sizes.map { "\($0.width)x\($0.height)" }.joined(separator: ", then ") : nil
    }
}
