import Testing
import VTKMedia

@Suite("MediaTime")
struct MediaTimeTests {
    @Test("Exact arithmetic across timescales")
    func arithmetic() {
        let a = MediaTime(value: 1, timescale: 3)
        let b = MediaTime(value: 1, timescale: 6)
        #expect(a + b == MediaTime(value: 1, timescale: 2))
        #expect((a + b).timescale == 6)
        #expect(a - b == b)
        #expect(MediaTime(value: 1001, timescale: 30000) * 30 == MediaTime(value: 30030, timescale: 30000))
        // 1/30000 * 3 + 1/90000 ... sums that floating point would round.
        var t = MediaTime.zero
        for _ in 0..<30000 { t = t + MediaTime(value: 1, timescale: 30000) }
        #expect(t == MediaTime(value: 1, timescale: 1))
    }

    @Test("Comparison is exact, also where Doubles are equal")
    func comparison() {
        let big = Int64(1) << 60
        let x = MediaTime(value: big, timescale: 1_000_000_007)
        let y = MediaTime(value: big + 1, timescale: 1_000_000_007)
        #expect(x.seconds == y.seconds)
        #expect(x < y)
        #expect(MediaTime(value: 2, timescale: 4) == MediaTime(value: 1, timescale: 2))
        #expect(Set([MediaTime(value: 2, timescale: 4), MediaTime(value: 1, timescale: 2)]).count == 1)
        #expect(MediaTime(value: -1, timescale: 2) < .zero)
    }

    @Test("Invalid and indefinite times")
    func specialValues() {
        #expect(!MediaTime.invalid.isValid)
        #expect((MediaTime.invalid + .zero) == .invalid)
        #expect(MediaTime.positiveInfinity + MediaTime(value: 5, timescale: 1) == .positiveInfinity)
        #expect((MediaTime.positiveInfinity + MediaTime.negativeInfinity) == .invalid)
        #expect(MediaTime.negativeInfinity < MediaTime(value: Int64.min, timescale: 1))
        #expect(MediaTime(value: Int64.max, timescale: 1) < .positiveInfinity)
        #expect(MediaTime.positiveInfinity < .invalid)
        #expect(MediaTime.invalid.seconds.isNaN)
        // Overflow saturates to an infinity rather than wrapping.
        #expect(MediaTime(value: Int64.max, timescale: 1) + MediaTime(value: 1, timescale: 1) == .positiveInfinity)
    }

    @Test("Conversion to another timescale rounds toward negative infinity")
    func conversion() {
        #expect(MediaTime(value: 1, timescale: 3).converted(to: 90000) == MediaTime(value: 30000, timescale: 90000))
        #expect(MediaTime(value: 1, timescale: 3).converted(to: 10).value == 3)
        #expect(MediaTime(value: -1, timescale: 3).converted(to: 10).value == -4)
    }
}
