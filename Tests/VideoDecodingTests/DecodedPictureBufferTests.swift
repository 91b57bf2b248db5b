import Testing
import VideoDecoding

/// The codec-neutral DPB with rules made for the test: every expected order below is worked out by hand from
/// the bumping process (C.4.5.3, C.5.2.4: the ready picture with the smallest PicOrderCnt goes first; a
/// non-reference picture leaves the buffer when output), not read from the code.
@Suite("VideoDecoding: the DPB's bumping, making room, flushing; the POC MSB rule")
struct DecodedPictureBufferTests {
    struct Picture: BufferedPicture {
        var id: PictureID
        var picOrderCnt: Int
        var isReference: Bool
        var neededForOutput = true
    }

    /// Reorder limit, one picture held back, and the reference with the smallest id evicted.
    struct Rules: DecodedPictureBufferRules {
        var maxReorder: Int?
        var held: PictureID?
        var emptied = 0
        func holdsBack(_ picture: Picture) -> Bool { picture.id == held }
        func requiresOutput(_ buffer: DecodedPictureBuffer<Rules>) -> Bool {
            maxReorder.map { buffer.readyForOutput.count > $0 } ?? false
        }
        func evictionCandidate(_ buffer: DecodedPictureBuffer<Rules>) -> PictureID? {
            buffer.referencePictures.min(by: { $0.id.rawValue < $1.id.rawValue })?.id
        }
        mutating func bufferEmptied() { emptied += 1; held = nil }
    }

    static func picture(_ id: Int, poc: Int, reference: Bool = false, output: Bool = true) -> Picture {
        Picture(id: PictureID(rawValue: id), picOrderCnt: poc, isReference: reference, neededForOutput: output)
    }

    static func outputs(_ events: [DecodedPictureBuffer<Rules>.Event]) -> [Int] {
        events.compactMap { if case .output(let p) = $0 { p.id.rawValue } else { nil } }
    }

    static func removed(_ events: [DecodedPictureBuffer<Rules>.Event]) -> [Int] {
        events.compactMap { if case .removed(let id) = $0 { id.rawValue } else { nil } }
    }

    @Test("bump: smallest PicOrderCnt first; a non-reference leaves the buffer, a reference stays")
    func bump() {
        var dpb = DecodedPictureBuffer(capacity: 4, rules: Rules())
        dpb.insert(Self.picture(0, poc: 8, reference: true))
        dpb.insert(Self.picture(1, poc: 4))
        dpb.insert(Self.picture(2, poc: 6, reference: true))
        let first = dpb.bump() ?? []
        #expect(Self.outputs(first) == [1] && Self.removed(first) == [1])
        let second = dpb.bump() ?? []
        #expect(Self.outputs(second) == [2] && Self.removed(second).isEmpty)
        #expect(dpb.pictures.map(\.id.rawValue) == [0, 2])
        #expect(Self.outputs(dpb.bump() ?? []) == [0])
        #expect(dpb.bump() == nil, "nothing waits: no output")
    }

    @Test("a held-back picture is not output until the rules let it go; a flush lets it go")
    func heldBack() {
        var dpb = DecodedPictureBuffer(capacity: 4, rules: Rules(maxReorder: 0))
        dpb.insert(Self.picture(0, poc: 0))
        dpb.rules.held = PictureID(rawValue: 0)
        #expect(dpb.additionalBumping().isEmpty, "only a held-back picture waits")
        dpb.insert(Self.picture(1, poc: 2))
        #expect(Self.outputs(dpb.additionalBumping()) == [1], "POC 2 goes before POC 0, which is held")
        #expect(Self.outputs(dpb.flush()) == [0])
        #expect(dpb.rules.emptied == 1 && dpb.isEmpty)
    }

    @Test("makeRoom: unused pictures go first, then bumping while full; a buffer full of references drops the rules' pick")
    func makeRoom() {
        var dpb = DecodedPictureBuffer(capacity: 2, rules: Rules())
        dpb.insert(Self.picture(0, poc: 0, reference: false, output: false))
        dpb.insert(Self.picture(1, poc: 5))
        var events = dpb.makeRoom()
        #expect(Self.removed(events) == [0] && Self.outputs(events).isEmpty, "an unused picture frees a buffer without output")

        dpb.insert(Self.picture(2, poc: 3, reference: true))
        events = dpb.makeRoom()
        #expect(Self.outputs(events) == [2, 1], "bumped until a buffer is free: POC 3 (stays, reference), then POC 5 (leaves)")
        #expect(Self.removed(events) == [1])

        var full = DecodedPictureBuffer(capacity: 2, rules: Rules())
        full.insert(Self.picture(7, poc: 0, reference: true, output: false))
        full.insert(Self.picture(3, poc: 1, reference: true, output: false))
        #expect(Self.removed(full.makeRoom()) == [3], "nothing to output: the rules' eviction candidate goes")
        #expect(full.pictures.map(\.id.rawValue) == [7])
    }

    @Test("flush without output: waiting pictures are discarded, then every picture is removed")
    func flushWithoutOutput() {
        var dpb = DecodedPictureBuffer(capacity: 3, rules: Rules())
        dpb.insert(Self.picture(0, poc: 2, reference: true))
        dpb.insert(Self.picture(1, poc: 1, reference: true, output: false))
        let events = dpb.flush(output: false)
        #expect(events == [.discarded(Self.picture(0, poc: 2, reference: true)), .removed(PictureID(rawValue: 0)), .removed(PictureID(rawValue: 1))])
        #expect(dpb.isEmpty)
    }

    @Test("insert with an id already held replaces that picture (a second field joins its store)")
    func insertReplaces() {
        var dpb = DecodedPictureBuffer(capacity: 2, rules: Rules())
        dpb.insert(Self.picture(4, poc: 0))
        dpb.insert(Self.picture(4, poc: 1, reference: true))
        #expect(dpb.pictures == [Self.picture(4, poc: 1, reference: true)])
    }

    @Test("PicOrderCntMsb (H.264 8-3, H.265 8-44): a wrap of the LSBs either way moves the MSB by MaxPicOrderCntLsb")
    func pocMsb() {
        // MaxPicOrderCntLsb 16: half is 8.
        #expect(PicOrderCntMsb.derive(lsb: 2, previousLsb: 14, previousMsb: 32, maxLsb: 16) == 48, "14 → 2 wraps forward (14 - 2 = 12 ≥ 8)")
        #expect(PicOrderCntMsb.derive(lsb: 6, previousLsb: 14, previousMsb: 32, maxLsb: 16) == 48, "a difference of exactly 8 wraps forward")
        #expect(PicOrderCntMsb.derive(lsb: 7, previousLsb: 14, previousMsb: 32, maxLsb: 16) == 32, "14 → 7 is a step back, no wrap")
        #expect(PicOrderCntMsb.derive(lsb: 14, previousLsb: 2, previousMsb: 32, maxLsb: 16) == 16, "2 → 14 wraps backward (12 > 8)")
        #expect(PicOrderCntMsb.derive(lsb: 10, previousLsb: 2, previousMsb: 32, maxLsb: 16) == 32, "a difference of exactly 8 forward is no wrap")
    }
}
