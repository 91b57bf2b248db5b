import PixelConversion
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

    /// An I420 frame converted straight into the surface (what the session does with a frame it codes at once)
    /// must leave the surface as writing its NV12 conversion does, padding included, on both paths; odd sizes
    /// give a chroma column and row that only half cover luma.
    @Test(arguments: [(152, 100), (151, 99)])
    func i420StraightIntoSurface(size: (Int, Int)) throws {
        let connection = try VADisplayConnection.open(.software)
        let (w, h, sw, sh) = (size.0, size.1, 160, 112)
        let surfaces = try VASurfaceSet(connection, width: sw, height: sh, count: 3)
        var frame = PixelBuffer(format: .i420, width: w, height: h)
        for p in 0..<3 { for i in frame.planes[p].bytes.indices { frame.planes[p].bytes[i] = UInt8(truncatingIfNeeded: i &* (31 + 6 * p) &+ p) } }
        try VASurfaceWriter.writeNV12(connection, PixelConverter.convert(frame, to: .nv12), to: surfaces.ids[0], surfaceWidth: sw, surfaceHeight: sh)
        for (index, derive) in [(1, true), (2, false)] {
            try VASurfaceWriter.writeNV12(connection, width: w, height: h, to: surfaces.ids[index], surfaceWidth: sw, surfaceHeight: sh,
                                          derive: derive) { luma, lumaPitch, chroma, chromaPitch in
                PixelConverter.writeNV12(frame, luma: luma, lumaPitch: lumaPitch, chroma: chroma, chromaPitch: chromaPitch)
            }
        }
        let read = try surfaces.ids.map { id in
            try VASurfaceReader.readNV12(connection, surface: id, surfaceWidth: sw, surfaceHeight: sh, crop: (0, 0, sw, sh))
        }
        #expect(read[1].planes == read[0].planes)
        #expect(read[2].planes == read[0].planes)
        #expect(Array(read[1].planes[0].bytes[0..<w]) == Array(frame.planes[0].bytes[0..<w]))
    }
}
