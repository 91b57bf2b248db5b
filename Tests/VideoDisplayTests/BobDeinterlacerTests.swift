import DecompressionSession
import Testing
import VideoDisplay
import VTKMedia

/// The oracle is the arithmetic written out: a field's picture repeats each line of its parity, and the two
/// fields of a frame at t lasting d are at t and t + d/2, each lasting d/2, as exact rationals (1001/60000 s,
/// not a Double rounded twice).
@Suite("Bob deinterlacer")
struct BobDeinterlacerTests {
    /// A 2x4 I420 picture whose luma row r holds 10 + r.
    static func picture() -> PixelBuffer {
        var picture = PixelBuffer(format: .i420, width: 2, height: 4)
        for row in 0..<4 {
            for x in 0..<2 { picture.planes[0].bytes[row * picture.planes[0].bytesPerRow + x] = UInt8(10 + row) }
        }
        return picture
    }

    static func lumaRows(_ picture: PixelBuffer) -> [UInt8] {
        (0..<picture.planes[0].rows).map { picture.planes[0].bytes[$0 * picture.planes[0].bytesPerRow] }
    }

    @Test("Two field pictures per frame, at t and t + d/2 exactly, each d/2 long, first field first, lines doubled")
    func fields() {
        let period = MediaTime(value: 1001, timescale: 30000)
        let frame = DisplayFrame(pixelBuffer: Self.picture(), presentationTime: period * 17, duration: period)
        let fields = BobDeinterlacer.fields(of: frame, order: .bottomFieldFirst)
        #expect(fields.count == 2)
        #expect(fields.map(\.presentationTime) == [MediaTime(value: 34 * 1001, timescale: 60000), MediaTime(value: 35 * 1001, timescale: 60000)])
        #expect(fields.allSatisfy { $0.duration == MediaTime(value: 1001, timescale: 60000) })
        #expect(fields[1].presentationTime + fields[1].duration == period * 18)
        #expect(Self.lumaRows(fields[0].pixelBuffer) == [11, 11, 13, 13], "bottom field first")
        #expect(Self.lumaRows(fields[1].pixelBuffer) == [10, 10, 12, 12])
        let top = BobDeinterlacer.fields(of: frame, order: .topFieldFirst)
        #expect(Self.lumaRows(top[0].pixelBuffer) == [10, 10, 12, 12])
    }

    @Test("A progressive frame (no field order) passes as it is")
    func progressive() {
        let frame = DisplayFrame(pixelBuffer: Self.picture(), presentationTime: .zero, duration: MediaTime(value: 1, timescale: 25))
        let out = BobDeinterlacer.fields(of: frame, order: nil)
        #expect(out.count == 1 && out[0].presentationTime == .zero && out[0].duration == MediaTime(value: 1, timescale: 25))
        #expect(Self.lumaRows(out[0].pixelBuffer) == [10, 11, 12, 13])
    }

    @Test("A frame's time is its image's: restamping changes the image's time, and pixels set keep the frame's time")
    func oneTime() {
        var frame = DisplayFrame(image: .pixels(Self.picture()), duration: MediaTime(value: 1, timescale: 25))
        #expect(!frame.presentationTime.isValid)
        frame.presentationTime = MediaTime(value: 3, timescale: 25)
        #expect(frame.image.presentationTime == MediaTime(value: 3, timescale: 25))
        frame.pixelBuffer = Self.picture()
        #expect(frame.presentationTime == MediaTime(value: 3, timescale: 25))
        let released = frame.image.released
        #expect(released.presentationTime == MediaTime(value: 3, timescale: 25) && released.width == 2)
    }
}
