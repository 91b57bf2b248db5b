/// The access unit an encode context writes into the coded buffer, in i965's order for both codecs: the
/// client's packed sequence then picture headers as sent; the parameter sets the driver writes (when it
/// writes them); then each slice, preceded by the raw data (SEI) rendered before its parameters; raw data
/// rendered after the last slice's parameters last. Start codes: the client's own in its packed data, 4
/// bytes before every NAL unit the driver writes.
enum EncodedAccessUnit {
    static func assemble(_ packed: [PackedHeader], parameterSets: [[UInt8]], slices: [[UInt8]]) -> [UInt8] {
        let startCode: [UInt8] = [0, 0, 0, 1]
        var out: [UInt8] = []
        for header in packed where header.kind == .sequence { out += header.bytes }
        for header in packed where header.kind == .picture { out += header.bytes }
        for set in parameterSets { out += startCode + set }
        for (index, slice) in slices.enumerated() {
            for header in packed where header.kind == .rawData && header.nextSlice == index { out += header.bytes }
            out += startCode + slice
        }
        for header in packed where header.kind == .rawData && header.nextSlice >= slices.count { out += header.bytes }
        return out
    }
}
