// libFuzzer target: the hvcC record (HEVCDecoderConfigurationRecord) and the format description built
// from it. Input: an hvcC payload.
import NALStream
import H265Bitstream

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHVCC(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let record = try? HEVCDecoderConfigurationRecord(bytes: bytes) {
        let again = try? HEVCDecoderConfigurationRecord(bytes: record.bytes)
        precondition(again == record, "hvcC does not round-trip")
        if let format = try? H265FormatDescription(hvcC: record) {
            _ = format.description
            _ = format.cleanAperture
            _ = format.hvcC?.bytes
        }
    }
    return 0
}
