// libFuzzer target: H.265 Annex B NAL scanning, access-unit assembly (VPS/SPS/PPS, slice segment headers,
// SEI) and the decoding process without VA (POC, RPS, reference lists, DPB output). Input: an H.265
// Annex B byte stream.
import H264Bitstream
import H265Bitstream
import H265Decoding
import VideoDecoding
import VTKMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEVC(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let units = H265AccessUnitAssembler.accessUnits(in: bytes)
    // Chunked assembly finds the same access units.
    var assembler = H265AccessUnitAssembler()
    var chunked = 0
    let chunk = max(1, Int(bytes.first ?? 7) % 97 + 1)
    var position = 0
    while position < bytes.count {
        let end = min(bytes.count, position + chunk)
        chunked += assembler.append(bytes[position..<end]).count
        position = end
    }
    chunked += assembler.finish().count
    precondition(chunked == units.count, "chunked assembly made \(chunked) access units, whole \(units.count)")
    var process = H265DecodingProcess()
    var decoded = Set<PictureID>(), released = Set<PictureID>()
    for (index, unit) in units.enumerated() {
        for nal in unit.nalUnits where [39, 40].contains(nal.h265Header.type.rawValue) { _ = try? H265SEIMessage.messages(in: nal) }
        for event in process.decode(unit, presentationTime: MediaTime(value: Int64(index), timescale: 25)) {
            switch event {
            case .decode(let request): decoded.insert(request.picture.id)
            case .released(let id): precondition(released.insert(id).inserted, "\(id) released twice")
            default: _ = "\(event)"
            }
        }
    }
    for event in process.flush() { if case .released(let id) = event { precondition(released.insert(id).inserted, "\(id) released twice") } }
    precondition(decoded == released, "pictures decoded but never released")
    return 0
}
