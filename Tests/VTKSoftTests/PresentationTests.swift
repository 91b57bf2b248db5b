import CLibVA
import Testing
import VideoAcceleration
import VTKMedia
import VTKTestSupport

/// vaPutSurface through VADisplayConnection.openX11 and present(surface:to:source:destination:): vtksoft
/// converts the surface with libyuv, scales it and XPutImages it on a pixmap of the test's Xvfb, whose pixels
/// are read back and compared with the BT.601 / BT.709 equations (an oracle independent of libyuv).
@Suite("vtksoft vaPutSurface on X11", .serialized,
       .enabled(if: PresentationFixture.unavailableReason == nil, Comment(rawValue: PresentationFixture.unavailableReason ?? "")))
struct PresentationTests {
    @Test("NV12, whole surface: each quadrant has its BT.601 colour; outside the destination the pixmap is untouched")
    func wholeSurface() throws {
        let fixture = try PresentationFixture()
        let surface = try fixture.quadrantSurface()
        let pixmap = try #require(X11Pixmap(width: 96, height: 80, fill: PresentationFixture.fill, on: fixture.server))
        try fixture.connection.present(surface: surface.ids[0], to: pixmap.drawable, source: .init(width: 64, height: 64),
                                       destination: .init(width: 64, height: 64))
        let pixels = pixmap.pixels()
        for (index, (x, y)) in [(16, 16), (48, 16), (16, 48), (48, 48)].enumerated() {
            let expected = PresentationFixture.rgb(PresentationFixture.quadrants[index], bt709: false)
            #expect(PresentationFixture.close(pixels[y * 96 + x], expected), "quadrant \(index) at (\(x), \(y)): \(hex(pixels[y * 96 + x])) for \(hex(expected))")
        }
        #expect(pixels[10 * 96 + 80] == PresentationFixture.fill && pixels[72 * 96 + 10] == PresentationFixture.fill)
    }

    @Test("A source rectangle (one quadrant) is scaled into a destination rectangle at an offset, and only there")
    func rectangles() throws {
        let fixture = try PresentationFixture()
        let surface = try fixture.quadrantSurface()
        let pixmap = try #require(X11Pixmap(width: 96, height: 80, fill: PresentationFixture.fill, on: fixture.server))
        try fixture.connection.present(surface: surface.ids[0], to: pixmap.drawable, source: .init(x: 32, y: 0, width: 32, height: 32),
                                       destination: .init(x: 10, y: 20, width: 64, height: 48))
        let pixels = pixmap.pixels()
        let topRight = PresentationFixture.rgb(PresentationFixture.quadrants[1], bt709: false)
        var wrong: [String] = []
        for y in 20..<68 {
            for x in 10..<74 where !PresentationFixture.close(pixels[y * 96 + x], topRight) { wrong.append("(\(x), \(y)) \(hex(pixels[y * 96 + x]))") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) pixels of the destination differ from the top right quadrant's \(hex(topRight)): \(wrong.prefix(5))")
        for (x, y) in [(9, 30), (74, 30), (40, 19), (40, 68), (0, 0), (95, 79)] {
            #expect(pixels[y * 96 + x] == PresentationFixture.fill, "(\(x), \(y)) outside the destination was drawn: \(hex(pixels[y * 96 + x]))")
        }
    }

    @Test("Clip rectangles (vaPutSurface's cliprects) limit what is drawn; VA_CLEAR_DRAWABLE blacks out the rest")
    func clipRectangles() throws {
        let fixture = try PresentationFixture()
        let surface = try fixture.quadrantSurface()
        let pixmap = try #require(X11Pixmap(width: 64, height: 64, fill: PresentationFixture.fill, on: fixture.server))
        var clip = [VARectangle(x: 8, y: 8, width: 16, height: 16)]
        #expect(vaPutSurface(fixture.connection.display, surface.ids[0], pixmap.drawable, 0, 0, 64, 64, 0, 0, 64, 64, &clip, 1, 0) == VA_STATUS_SUCCESS)
        var pixels = pixmap.pixels()
        #expect(PresentationFixture.close(pixels[16 * 64 + 16], PresentationFixture.rgb(PresentationFixture.quadrants[0], bt709: false)))
        #expect(pixels[16 * 64 + 30] == PresentationFixture.fill && pixels[48 * 64 + 48] == PresentationFixture.fill, "drawn outside the clip rectangle")
        #expect(vaPutSurface(fixture.connection.display, surface.ids[0], pixmap.drawable, 0, 0, 64, 64, 0, 0, 32, 32, nil, 0,
                             UInt32(VA_CLEAR_DRAWABLE)) == VA_STATUS_SUCCESS)
        pixels = pixmap.pixels()
        #expect(pixels[48 * 64 + 48] == 0, "VA_CLEAR_DRAWABLE left \(hex(pixels[48 * 64 + 48]))")
        #expect(PresentationFixture.close(pixels[4 * 64 + 4], PresentationFixture.rgb(PresentationFixture.quadrants[0], bt709: false)))
    }

    @Test("The BT.709 flag (VA_SRC_BT709) converts with BT.709, which differs from BT.601 on these colours")
    func bt709() throws {
        let fixture = try PresentationFixture()
        let surface = try fixture.quadrantSurface()
        let pixmap = try #require(X11Pixmap(width: 64, height: 64, fill: PresentationFixture.fill, on: fixture.server))
        try fixture.connection.present(surface: surface.ids[0], to: pixmap.drawable, source: .init(width: 64, height: 64),
                                       destination: .init(width: 64, height: 64), matrix: .bt709)
        let pixel = pixmap.pixels()[16 * 64 + 16]
        let bt709 = PresentationFixture.rgb(PresentationFixture.quadrants[0], bt709: true)
        let bt601 = PresentationFixture.rgb(PresentationFixture.quadrants[0], bt709: false)
        #expect(PresentationFixture.close(pixel, bt709), "\(hex(pixel)) for BT.709's \(hex(bt709))")
        #expect(!PresentationFixture.close(pixel, bt601), "\(hex(pixel)) is BT.601's \(hex(bt601))")
    }

    @Test("P010 (10-bit) surfaces are presented too, with the 8-bit colours of the same samples")
    func tenBit() throws {
        let fixture = try PresentationFixture()
        let surface = try fixture.quadrantSurface(tenBit: true)
        let pixmap = try #require(X11Pixmap(width: 64, height: 64, fill: PresentationFixture.fill, on: fixture.server))
        try fixture.connection.present(surface: surface.ids[0], to: pixmap.drawable, source: .init(width: 64, height: 64),
                                       destination: .init(width: 64, height: 64))
        let pixels = pixmap.pixels()
        for (index, (x, y)) in [(16, 16), (48, 16), (16, 48), (48, 48)].enumerated() {
            let expected = PresentationFixture.rgb(PresentationFixture.quadrants[index], bt709: false)
            #expect(PresentationFixture.close(pixels[y * 64 + x], expected), "quadrant \(index): \(hex(pixels[y * 64 + x])) for \(hex(expected))")
        }
    }

    @Test("Bad calls get VA statuses, and a drawable that does not exist does not end the process")
    func badCalls() throws {
        let fixture = try PresentationFixture()
        let surface = try fixture.quadrantSurface()
        let pixmap = try #require(X11Pixmap(width: 64, height: 64, fill: PresentationFixture.fill, on: fixture.server))
        let whole = PresentationRectangle(width: 64, height: 64)
        func status(_ body: () throws -> Void) -> VAStatus? {
            do { try body() } catch { return (error as? VAError)?.status }
            return nil
        }
        #expect(status { try fixture.connection.present(surface: surface.ids[0] + 1000, to: pixmap.drawable, source: whole, destination: whole) }
                == VAStatus(VA_STATUS_ERROR_INVALID_SURFACE))
        #expect(status { try fixture.connection.present(surface: surface.ids[0], to: pixmap.drawable, source: whole, destination: .init(width: 0, height: 64)) }
                == VAStatus(VA_STATUS_ERROR_INVALID_PARAMETER))
        #expect(status { try fixture.connection.present(surface: surface.ids[0], to: pixmap.drawable, source: .init(x: 200, y: 0, width: 16, height: 16), destination: whole) }
                == VAStatus(VA_STATUS_ERROR_INVALID_PARAMETER))
        // An XID no client allocated: BadDrawable, caught by vtksoft instead of Xlib's handler exiting the process.
        #expect(status { try fixture.connection.present(surface: surface.ids[0], to: 0x1FFF_FFF0, source: whole, destination: whole) }
                == VAStatus(VA_STATUS_ERROR_INVALID_PARAMETER))
        #expect(pixmap.pixels().allSatisfy { $0 == PresentationFixture.fill }, "a refused call drew")
        // And the display still presents.
        try fixture.connection.present(surface: surface.ids[0], to: pixmap.drawable, source: whole, destination: whole)
        #expect(pixmap.pixels()[16 * 64 + 16] != PresentationFixture.fill)
    }

    @Test("canPresent: vtksoft on X11 yes; the nvidia persona (nvPutSurface is unimplemented) and a display without X no")
    func canPresent() throws {
        let fixture = try PresentationFixture()
        #expect(fixture.connection.canPresent)
        #expect(fixture.connection.x11DisplayName == fixture.server.display)
        let noX = try VADisplayConnection.openSoftware()
        #expect(!noX.canPresent)
        #expect(throws: VAError.self) { try VAFramePresenter(connection: noX) }

        let nvidia = try VADisplayConnection.openX11(.software, displayName: fixture.server.display)
        try #require(VTKSoftCounters.setPersona("nvidia", in: nvidia.display), "vtksoft_display_set_persona")
        #expect(!nvidia.canPresent)
        let surface = try VASurfaceSet(nvidia, width: 64, height: 64, count: 1)
        let pixmap = try #require(X11Pixmap(width: 64, height: 64, fill: PresentationFixture.fill, on: fixture.server))
        do {
            try nvidia.present(surface: surface.ids[0], to: pixmap.drawable, source: .init(width: 64, height: 64), destination: .init(width: 64, height: 64))
            Issue.record("the nvidia persona presented")
        } catch {
            #expect(error.status == VAStatus(VA_STATUS_ERROR_UNIMPLEMENTED))
        }
    }

    @Test("VAFramePresenter shows an NV12 pixel buffer, scaled to the destination")
    func framePresenter() throws {
        let fixture = try PresentationFixture()
        let presenter = try VAFramePresenter(connection: fixture.connection)
        let pixmap = try #require(X11Pixmap(width: 96, height: 96, fill: PresentationFixture.fill, on: fixture.server))
        try presenter.present(PresentationFixture.quadrantBuffer(), to: pixmap.drawable, destination: .init(width: 96, height: 96))
        let pixels = pixmap.pixels()
        for (index, (x, y)) in [(24, 24), (72, 24), (24, 72), (72, 72)].enumerated() {
            let expected = PresentationFixture.rgb(PresentationFixture.quadrants[index], bt709: false)
            #expect(PresentationFixture.close(pixels[y * 96 + x], expected), "quadrant \(index): \(hex(pixels[y * 96 + x])) for \(hex(expected))")
        }
    }
}

private func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }

/// vtksoft on the test process's Xvfb (an X11 VA display) and a 64x64 surface of four coloured quadrants.
struct PresentationFixture {
    static let unavailableReason: String? = {
        if !Xvfb.isInstalled { return "Xvfb not installed: skipping vtksoft's vaPutSurface checks" }
        if VTKSoftDriverLocation.directory == nil { return VTKSoftDriverLocation.missingMessage }
        if Xvfb.shared == nil { return "Xvfb would not start: skipping vtksoft's vaPutSurface checks" }
        return nil
    }()

    /// What the pixmaps hold before presenting (magenta, which no quadrant is).
    static let fill: UInt32 = 0xFF00FF
    /// (Y, Cb, Cr) of the quadrants: top left, top right, bottom left, bottom right; none clips in RGB.
    static let quadrants: [(y: Int, u: Int, v: Int)] = [(100, 100, 180), (150, 170, 90), (60, 160, 110), (200, 110, 140)]

    let server: Xvfb
    let connection: VADisplayConnection

    init() throws {
        server = try #require(Xvfb.shared)
        connection = try VADisplayConnection.openX11(.software, displayName: server.display)
    }

    /// 0xRRGGBB of limited-range (Y, Cb, Cr) by the BT.601 or BT.709 equations.
    static func rgb(_ sample: (y: Int, u: Int, v: Int), bt709: Bool) -> UInt32 {
        let y = 1.164 * Double(sample.y - 16), u = Double(sample.u - 128), v = Double(sample.v - 128)
        let (r, g, b) = bt709 ? (y + 1.793 * v, y - 0.213 * u - 0.533 * v, y + 2.112 * u)
                              : (y + 1.596 * v, y - 0.391 * u - 0.813 * v, y + 2.018 * u)
        func byte(_ x: Double) -> UInt32 { UInt32(min(max(x.rounded(), 0), 255)) }
        return byte(r) << 16 | byte(g) << 8 | byte(b)
    }

    /// Each channel within 3 (libyuv's fixed-point coefficients).
    static func close(_ a: UInt32, _ b: UInt32) -> Bool {
        [16, 8, 0].allSatisfy { abs(Int(a >> $0 & 0xFF) - Int(b >> $0 & 0xFF)) <= 3 }
    }

    /// The quadrants as an NV12 buffer of 64x64.
    static func quadrantBuffer() -> PixelBuffer {
        var buffer = PixelBuffer(format: .nv12, width: 64, height: 64)
        let lumaRow = buffer.planes[0].bytesPerRow, chromaRow = buffer.planes[1].bytesPerRow
        for y in 0..<64 {
            for x in 0..<64 { buffer.planes[0].bytes[y * lumaRow + x] = UInt8(quadrants[(y / 32) * 2 + x / 32].y) }
        }
        for y in 0..<32 {
            for x in 0..<32 {
                let q = quadrants[(y / 16) * 2 + x / 16]
                buffer.planes[1].bytes[y * chromaRow + 2 * x] = UInt8(q.u)
                buffer.planes[1].bytes[y * chromaRow + 2 * x + 1] = UInt8(q.v)
            }
        }
        return buffer
    }

    /// A surface holding the quadrants: NV12 through VASurfaceWriter, or P010 (the samples times 4, in the
    /// high bits) written into the derived image.
    func quadrantSurface(tenBit: Bool = false) throws -> VASurfaceSet {
        guard tenBit else {
            let set = try VASurfaceSet(connection, width: 64, height: 64, count: 1)
            try VASurfaceWriter.writeNV12(connection, Self.quadrantBuffer(), to: set.ids[0], surfaceWidth: 64, surfaceHeight: 64)
            return set
        }
        let set = try VASurfaceSet(connection, width: 64, height: 64, count: 1, rtFormat: UInt32(VA_RT_FORMAT_YUV420_10), fourcc: UInt32(VA_FOURCC_P010))
        var image = VAImage()
        try #require(vaDeriveImage(connection.display, set.ids[0], &image) == VA_STATUS_SUCCESS)
        defer { vaDestroyImage(connection.display, image.image_id) }
        var mapped: UnsafeMutableRawPointer?
        try #require(vaMapBuffer(connection.display, image.buf, &mapped) == VA_STATUS_SUCCESS)
        let base = try #require(mapped)
        let pitches = withUnsafeBytes(of: image.pitches) { Array($0.bindMemory(to: UInt32.self).prefix(2)).map(Int.init) }
        let offsets = withUnsafeBytes(of: image.offsets) { Array($0.bindMemory(to: UInt32.self).prefix(2)).map(Int.init) }
        func store(_ value: Int, plane: Int, row: Int, sample: Int) {
            base.storeBytes(of: UInt16(value << 8), toByteOffset: offsets[plane] + row * pitches[plane] + sample * 2, as: UInt16.self)
        }
        for y in 0..<64 { for x in 0..<64 { store(Self.quadrants[(y / 32) * 2 + x / 32].y, plane: 0, row: y, sample: x) } }
        for y in 0..<32 {
            for x in 0..<32 {
                let q = Self.quadrants[(y / 16) * 2 + x / 16]
                store(q.u, plane: 1, row: y, sample: 2 * x)
                store(q.v, plane: 1, row: y, sample: 2 * x + 1)
            }
        }
        vaUnmapBuffer(connection.display, image.buf)
        return set
    }
}
