import Testing
import VideoAcceleration
import VTKMedia

@Suite("Frames into VA surfaces: derived image and put image agree, edges repeated into the padding")
struct SurfaceWriterTests {
    @Test func bothPathsAndPadding() throws {
        let connection = try VADisplayConnection.open(.software)
        let (w, h, sw, sh) = (152, 100, 160, 112)
        let surfaces = try VASurfaceSet(connection, width: sw, height: sh, count: 2)
        var frame = PixelBuffer(format: .nv12, width: w, height: h)
        for i in frame.planes[0].bytes.indices { frame.planes[0].bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        for i in frame.planes[1].bytes.indices { frame.planes[1].bytes[i] = UInt8(truncatingIfNeeded: i &* 17 &+ 5) }
        try VASurfaceWriter.writeNV12(connection, frame, to: surfaces.ids[0], surfaceWidth: sw, surfaceHeight: sh, derive: true)
        try VASurfaceWriter.writeNV12(connection, frame, to: surfaces.ids[1], surfaceWidth: sw, surfaceHeight: sh, derive: false)
        let read = try surfaces.ids.map { id in
            try VASurfaceReader.readNV12(connection, surface: id, surfaceWidth: sw, surfaceHeight: sh, crop: (0, 0, sw, sh))
        }
        #expect(read[0].planes == read[1].planes)
        let y = read[0].planes[0].bytes, uv = read[0].planes[1].bytes
        // The picture itself.
        for row in [0, 37, h - 1] {
            #expect(Array(y[(row * sw)..<(row * sw + w)]) == Array(frame.planes[0].bytes[(row * w)..<(row * w + w)]))
        }
        // Padding: the last column to the right, the last row below.
        for row in 0..<h { #expect(y[(row * sw + w)..<(row * sw + sw)].allSatisfy { $0 == y[row * sw + w - 1] }) }
        for row in h..<sh { #expect(Array(y[(row * sw)..<(row * sw + sw)]) == Array(y[((h - 1) * sw)..<((h - 1) * sw + sw)])) }
        let lastChromaRow = h / 2 - 1
        for row in (h / 2)..<(sh / 2) {
            #expect(Array(uv[(row * sw)..<(row * sw + sw)]) == Array(uv[(lastChromaRow * sw)..<(lastChromaRow * sw + sw)]))
        }
        #expect(uv[sw - 2] == uv[w - 2] && uv[sw - 1] == uv[w - 1])
    }
}
