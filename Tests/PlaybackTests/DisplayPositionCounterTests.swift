import Playback
import Testing

/// The counting rule on hand-made role sequences (H.265 7.4.2.2, 8.1.3): pictures before the first sync
/// sample and the first random access point's RASL pictures hold no position; a later random access point
/// starts after its RASL pictures; RADL pictures are output.
@Suite("display positions of sync samples")
struct DisplayPositionCounterTests {
    static func positions(_ roles: [PictureRole]) -> [Int?] {
        var counter = DisplayPositionCounter()
        return roles.indices.map { i in
            var skipped = 0
            if roles[i] == .randomAccessPoint {
                for role in roles[(i + 1)...] {
                    guard role.isLeading else { break }
                    if role == .skippedLeading { skipped += 1 }
                }
            }
            return counter.add(roles[i], skippedLeading: skipped)
        }
    }

    @Test("an IDR stream: each sync sample starts at its decoding position")
    func closedGOPs() {
        #expect(Self.positions([.sync, .other, .other, .sync, .other]) == [0, nil, nil, 3, nil])
    }

    @Test("a CRA that starts the stream: its RASL pictures hold no position; a later CRA starts after its own")
    func openGOPs() {
        let roles: [PictureRole] = [.randomAccessPoint, .skippedLeading, .skippedLeading, .other, .other,
                                    .randomAccessPoint, .skippedLeading, .skippedLeading, .decodableLeading, .other]
        // Output in a decode from the start: 0, 3, 4 (positions 0-2), then 6, 7, 8 (RASL and RADL), 5, 9.
        #expect(Self.positions(roles) == [0, nil, nil, nil, nil, 3 + 2, nil, nil, nil, nil])
    }

    @Test("pictures before the first sync sample are never output")
    func leadingJunk() {
        #expect(Self.positions([.other, .skippedLeading, .sync, .other, .sync]) == [nil, nil, 0, nil, 2])
    }
}
