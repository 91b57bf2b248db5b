import H265Bitstream
@testable import H265Decoding
import Testing
import VideoDecoding

/// The output process of C.5.2 on pictures made by hand: what is output, when, and what is dropped.
struct H265DecodedPictureBufferTests {
    static func picture(_ poc: Int, _ index: Int, output: Bool = true, reference: Bool = true) -> H265DecodedPicture {
        var p = H265DecodedPicture(id: PictureID(rawValue: index), decodeIndex: index, poc: poc, nalUnitType: .trailR)
        p.reference = reference ? .shortTerm : .unused
        p.neededForOutput = output
        return p
    }

    static func outputs(_ events: [H265DecodedPictureBuffer.Event]) -> [Int] {
        events.compactMap { if case .output(let p) = $0 { p.poc } else { nil } }
    }

    @Test("sps_max_num_reorder_pics: a picture is output once more than that many wait, in POC order")
    func reorder() {
        var dpb = H265DecodedPictureBuffer(capacity: 6, maxNumReorder: 2, maxLatency: nil)
        var out: [Int] = []
        for (index, poc) in [0, 4, 2, 1, 3, 8, 6, 5, 7].enumerated() {
            out += Self.outputs(dpb.makeRoom())
            // Non-reference pictures, so that the DPB size never forces output: only the reorder limit does.
            out += Self.outputs(dpb.store(Self.picture(poc, index, reference: false)))
            #expect(dpb.pictures.filter(\.neededForOutput).count <= 2)
        }
        out += Self.outputs(dpb.flush(output: true))
        #expect(out == Array(0...8))
    }

    @Test("SpsMaxLatencyPictures: with latency 0 allowed, every picture goes out as soon as it is stored")
    func latency() {
        var dpb = H265DecodedPictureBuffer(capacity: 6, maxNumReorder: 4, maxLatency: 1)
        var out: [Int] = []
        for (index, poc) in [0, 1, 2, 3].enumerated() {
            out += Self.outputs(dpb.makeRoom())
            out += Self.outputs(dpb.store(Self.picture(poc, index)))
        }
        // The second store counts the first picture's latency to 1: it leaves then, and so on.
        #expect(out == [0, 1, 2])
    }

    @Test("pic_output_flag 0: never output, removed once no reference; NoOutputOfPriorPicsFlag drops what waits")
    func noOutput() {
        var dpb = H265DecodedPictureBuffer(capacity: 4, maxNumReorder: 4, maxLatency: nil)
        _ = dpb.store(Self.picture(0, 0))
        _ = dpb.store(Self.picture(1, 1, output: false))
        _ = dpb.store(Self.picture(2, 2))
        let events = dpb.flush(output: false)
        #expect(Self.outputs(events).isEmpty)
        let dropped = events.compactMap { if case .discarded(let p) = $0 { p.poc } else { nil } }
        #expect(dropped == [0, 2])
        #expect(events.filter { if case .removed = $0 { true } else { false } }.count == 3)
        #expect(dpb.pictures.isEmpty)
    }

    @Test("a full DPB bumps before the current picture is stored (C.5.2.2), until a buffer is free")
    func fullness() {
        var dpb = H265DecodedPictureBuffer(capacity: 2, maxNumReorder: 5, maxLatency: nil)
        _ = dpb.store(Self.picture(0, 0))
        _ = dpb.store(Self.picture(2, 1, reference: false))
        let events = dpb.makeRoom()
        // POC 0 is output but stays (a reference); POC 2 is output and leaves, freeing its buffer.
        #expect(Self.outputs(events) == [0, 2])
        #expect(dpb.pictures.map(\.poc) == [0])
    }
}
