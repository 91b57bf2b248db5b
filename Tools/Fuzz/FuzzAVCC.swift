// libFuzzer target: the avcC record (AVCDecoderConfigurationRecord), the format description built from
// it, and length-prefixed samples. Input: an avcC payload.
import H264Bitstream

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVCC(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let record = try? AVCDecoderConfigurationRecord(bytes: bytes) {
        // Writing it back and reading it again gives the same record.
        let again = try? AVCDecoderConfigurationRecord(bytes: record.bytes)
        precondition(again == record, "avcC does not round-trip")
        if let format = try? H264FormatDescription(avcC: record) {
            _ = format.description
            _ = format.cleanAperture
            _ = format.avcC.bytes
        }
    }
    // The same bytes as a sample with each length size.
    for lengthSize in [1, 2, 4] {
        if let units = try? LengthPrefixedSample.nalUnits(in: bytes, lengthSize: lengthSize) {
            let sample = try? LengthPrefixedSample.sample(units, lengthSize: lengthSize)
            precondition(sample == nil || sample! == bytes, "length-prefixed sample does not round-trip")
        }
        _ = try? LengthPrefixedSample.toAnnexB(bytes, lengthSize: lengthSize)
    }
    return 0
}
