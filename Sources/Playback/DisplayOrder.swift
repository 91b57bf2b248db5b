import H264Bitstream
import H264Decoding
import H265Bitstream
import H265Decoding
import VTKMedia

/// The display position of each picture of a whole Annex B stream held in memory, by its decoding position, from the decoding
/// process without VA: POC order and DPB output (H.264 8.2.1 and C.4; H.265 8.3.1 and C.5.2), for a sender that
/// stamps RTP times (a player needs no such pass: ``DisplayPositionCounter``). Pictures the
/// process never outputs (RASL pictures of a CRA that starts the stream) have none.
public enum DisplayOrder {
    public static func of(h264 pictures: [AccessUnit]) -> [Int: Int] {
        var process = H264DecodingProcess()
        return outputOrder(pictures) { unit, time in
            process.decode(unit, presentationTime: time).compactMap { if case .output(let picture) = $0 { picture.presentationTime } else { nil } }
        } flush: {
            process.flush().compactMap { if case .output(let picture) = $0 { picture.presentationTime } else { nil } }
        }
    }

    public static func of(h265 pictures: [H265AccessUnit]) -> [Int: Int] {
        var process = H265DecodingProcess()
        return outputOrder(pictures) { unit, time in
            process.decode(unit, presentationTime: time).compactMap { if case .output(let picture) = $0 { picture.presentationTime } else { nil } }
        } flush: {
            process.flush().compactMap { if case .output(let picture) = $0 { picture.presentationTime } else { nil } }
        }
    }

    /// Picture i goes into a decoding process with time i; the times come out in display order.
    private static func outputOrder<Unit>(_ pictures: [Unit], decode: (Unit, MediaTime) -> [MediaTime], flush: () -> [MediaTime]) -> [Int: Int] {
        var order: [Int: Int] = [:]
        func note(_ times: [MediaTime]) { for time in times where time.isNumeric { order[Int(time.value)] = order.count } }
        for (index, unit) in pictures.enumerated() { note(decode(unit, MediaTime(value: Int64(index), timescale: 1))) }
        note(flush())
        return order
    }
}
