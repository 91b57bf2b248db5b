import DecompressionSession
import H264Bitstream

/// A quick pass over an Annex B file before decoding it: the display sizes its SPSs give, in stream
/// order, and how many pictures it holds. Only SPSs are parsed; a picture is a slice NAL unit that the
/// codec says starts one (first_mb_in_slice 0, first_slice_segment_in_pic_flag), so no slice header is read.
struct StreamScan {
    private(set) var sizes: [(width: Int, height: Int)] = []
    private(set) var pictures = 0
    /// Pictures before the first SPS with another size (a new size starts at an IDR, so in display
    /// order too); nil when the size never changes.
    private(set) var picturesBeforeChange: Int?

    init(path: String, codec: any StreamDecodingCodec.Type, command: String) throws(CommandFailure) {
        let input = try InputFile(path, command: command)
        var reader = AnnexBStreamReader()
        while true {
            let chunk = try input.read()
            for unit in chunk.isEmpty ? reader.finish() : reader.append(chunk) { take(unit, codec: codec) }
            if chunk.isEmpty { break }
        }
    }

    private mutating func take(_ unit: NALUnit, codec: any StreamDecodingCodec.Type) {
        if codec.startsPicture(unit) {
            pictures += 1
        } else if let size = codec.displaySize(ofSequenceParameterSet: unit), sizes.last.map({ $0 != size }) ?? true {
            if !sizes.isEmpty && picturesBeforeChange == nil { picturesBeforeChange = pictures }
            sizes.append(size)
        }
    }

    /// "640x360, then 320x180" when the size changes; nil when it does not.
    var sizeChange: String? {
        sizes.count > 1 ? sizes.map { "\($0.width)x\($0.height)" }.joined(separator: ", then ") : nil
    }
}
