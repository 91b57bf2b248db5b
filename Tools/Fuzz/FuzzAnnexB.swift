// libFuzzer target: Annex B NAL scanning, streaming NAL reading, access-unit assembly and the decoding
// process without VA (POC, frame_num gaps, reference marking and lists, DPB output).
// Built by Tools/Fuzz/build.sh; the input is a raw Annex B byte stream.
import H264Bitstream
import H264Decoding
import VTKMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAnnexB(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []

    // Whole-buffer scanning.
    let whole = AnnexBScanner.nalUnits(in: bytes)
    _ = AnnexBScanner.startCodeOffsets(in: bytes)

    // The streaming reader, fed in chunks whose size comes from the first byte, must find the same units.
    var reader = AnnexBStreamReader()
    var streamed: [NALUnit] = []
    let chunk = max(1, Int(bytes.first ?? 7) % 61 + 1)
    var position = 0
    while position < bytes.count {
        let end = min(bytes.count, position + chunk)
        streamed += reader.append(bytes[position..<end])
        position = end
    }
    streamed += reader.finish()
    precondition(streamed.count == whole.count, "stream reader found \(streamed.count) NAL units, scanner \(whole.count)")
    for (a, b) in zip(streamed, whole) {
        precondition(a.offset == b.offset && a.bytes.elementsEqual(b.bytes), "stream reader and scanner differ at \(a.offset)/\(b.offset)")
    }

    // Access units, in memory and from chunks.
    let units = AccessUnitAssembler.accessUnits(in: bytes)
    var assembler = AccessUnitAssembler()
    var chunked = 0
    position = 0
    while position < bytes.count {
        let end = min(bytes.count, position + chunk * 3)
        chunked += assembler.append(bytes[position..<end]).count
        position = end
    }
    chunked += assembler.finish().count
    precondition(chunked == units.count, "chunked assembly made \(chunked) access units, whole \(units.count)")

    // The decoding process over them, with the descriptions every event can produce.
    var process = H264DecodingProcess()
    var decodes = 0
    for (index, unit) in units.enumerated() {
        _ = unit.isIDR
        _ = unit.hasPicture
        for event in process.decode(unit, presentationTime: MediaTime(value: Int64(index), timescale: 25)) {
            if case .decode = event { decodes += 1 } else { _ = "\(event)" }
        }
    }
    _ = process.flush()
    precondition(decodes <= units.count, "more pictures decoded than access units")
    return 0
}
