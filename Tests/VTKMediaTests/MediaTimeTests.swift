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

    @Test("Division by an integer is exact: on a finer timescale when the value does not divide")
    func division() {
        let frame = MediaTime(value: 1001, timescale: 30000)
        let half = frame / 2
        #expect(half == MediaTime(value: 1001, timescale: 60000))
        #expect(half + half == frame)
        #expect(MediaTime(value: 3600, timescale: 90000) / 2 == MediaTime(value: 1800, timescale: 90000))
        #expect((MediaTime(value: 3600, timescale: 90000) / 2).timescale == 90000)
        // A second field 17 frames in: exact, where t.seconds + half.seconds rounds twice.
        #expect((frame * 17 + half) == MediaTime(value: 35 * 1001, timescale: 60000))
        #expect(MediaTime.invalid / 2 == .invalid)
        #expect(MediaTime.positiveInfinity / 2 == .positiveInfinity)
        #expect(MediaTime(value: -3, timescale: 4) / 3 == MediaTime(value: -1, timescale: 4))
        // No finer timescale fits in 32 bits: rounded toward negative infinity on the same one.
        #expect(MediaTime(value: 3, timescale: Int32.max) / 2 == MediaTime(value: 1, timescale: Int32.max))
    }

    @Test("Conversion to another timescale rounds toward negative infinity")
    func conversion() {
        #expect(MediaTime(value: 1, timescale: 3).converted(to: 90000) == MediaTime(value: 30000, timescale: 90000))
        #expect(MediaTime(value: 1, timescale: 3).converted(to: 10).value == 3)
        #expect(MediaTime(value: -1, timescale: 3).converted(to: 10).value == -4)
    }
}

@Suite("MD5")
struct MD5Tests {
    @Test("RFC 1321 test suite")
    func rfcVectors() {
        let vectors: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (text, digest) in vectors { #expect(MD5.hex(Array(text.utf8)) == digest, "\(text)") }
    }

    @Test("Fed in pieces of any size, the digest is the same")
    func incremental() {
        let data = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = MD5.hex(data)
        for piece in [1, 3, 63, 64, 65, 1000] {
            var md5 = MD5()
            var i = 0
            while i < data.count { md5.update(data[i..<min(i + piece, data.count)]); i += piece }
            #expect(md5.finalize() == whole)
        }
    }
}
