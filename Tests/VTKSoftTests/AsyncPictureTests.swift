import CLibVA
import H264Bitstream
import Testing
import VTKTestSupport

/// The hardware-like timing of the personas: pictures run on the display's worker, vaEndPicture returns at
/// once, vaQuerySurfaceStatus says Rendering until the picture is done, vaSyncSurface and vaMapBuffer wait.
@Suite("vtksoft pictures in flight")
struct AsyncPictureTests {
    @Test("ihd-gen12: three pictures in flight are Rendering, then each coded buffer holds its own picture, in order")
    func picturesInFlight() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let display = owner.display
        try #require(VTKSoftCounters.setPersona("ihd-gen12", in: display), "vtksoft_display_set_persona")
        let client = VTKSoftVAClient(display: display)
        var attributes = [VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420)),
                          VAConfigAttrib(type: VAConfigAttribRateControl, value: UInt32(VA_RC_CQP))]
        var config = VAConfigID(VA_INVALID_ID)
        // iHD's free Gen12 build encodes H.264 only on EncSliceLP.
        #expect(vaCreateConfig(display, VAProfileH264Main, VAEntrypointEncSlice, &attributes, 2, &config) == VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT)
        try client.check(vaCreateConfig(display, VAProfileH264Main, VAEntrypointEncSliceLP, &attributes, 2, &config), "vaCreateConfig")
        defer { vaDestroyConfig(display, config) }
        var sources = try (0..<3).map { _ in try client.createSurface() }
        defer { vaDestroySurfaces(display, &sources, 3) }
        for s in sources { try client.fill(s) }
        var context = VAContextID(VA_INVALID_ID)
        try client.check(vaCreateContext(display, config, Int32(VTKSoftVAClient.size), Int32(VTKSoftVAClient.size), VA_PROGRESSIVE,
                                         &sources, 3, &context), "vaCreateContext")
        defer { vaDestroyContext(display, context) }
        var coded: [VABufferID] = []
        defer { for b in coded { vaDestroyBuffer(display, b) } }

        try #require(VTKSoftCounters.holdWorker(true, in: display))
        // Falling QP: each picture codes larger than the one before.
        let qps: [UInt8] = [45, 30, 15]
        var parameterBuffers: [VABufferID] = []
        defer { for b in parameterBuffers { vaDestroyBuffer(display, b) } }
        for (source, qp) in zip(sources, qps) {
            var buffer = VABufferID(VA_INVALID_ID)
            try client.check(vaCreateBuffer(display, context, VAEncCodedBufferType, 1 << 16, 1, nil, &buffer), "coded buffer")
            coded.append(buffer)
            let (sequence, picture, slice) = VTKSoftVAClient.idrParameters(source: source, coded: buffer, qp: qp)
            var buffers = [try client.createBuffer(context, VAEncSequenceParameterBufferType, sequence),
                           try client.createBuffer(context, VAEncPictureParameterBufferType, picture),
                           try client.createBuffer(context, VAEncSliceParameterBufferType, slice)]
            parameterBuffers += buffers
            try client.check(vaBeginPicture(display, context, source), "vaBeginPicture")
            try client.check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
            try client.check(vaEndPicture(display, context), "vaEndPicture")
        }
        for source in sources {
            var status = VASurfaceReady
            try client.check(vaQuerySurfaceStatus(display, source, &status), "vaQuerySurfaceStatus")
            #expect(status == VASurfaceRendering, "surface \(source) while the worker is held")
        }
        try #require(VTKSoftCounters.holdWorker(false, in: display))
        var sizes: [Int] = []
        for (source, buffer) in zip(sources, coded) {
            try client.check(vaSyncSurface(display, source), "vaSyncSurface")
            var status = VASurfaceRendering
            try client.check(vaQuerySurfaceStatus(display, source, &status), "vaQuerySurfaceStatus")
            #expect(status == VASurfaceReady)
            var pointer: UnsafeMutableRawPointer?
            try client.check(vaMapBuffer(display, buffer, &pointer), "map coded")
            let segment = try #require(pointer).assumingMemoryBound(to: VACodedBufferSegment.self).pointee
            sizes.append(Int(segment.size))
            vaUnmapBuffer(display, buffer)
        }
        #expect(sizes.allSatisfy { $0 > 0 } && sizes == sizes.sorted() && Set(sizes).count == 3, "coded sizes \(sizes) for QP \(qps)")
    }

    @Test("nvidia: vaDeriveImage is refused with OPERATION_FAILED, no encode entrypoint, NV12 and P010 the image formats")
    func nvidiaRefusesDerive() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let display = owner.display
        try #require(VTKSoftCounters.setPersona("nvidia", in: display), "vtksoft_display_set_persona")
        let client = VTKSoftVAClient(display: display)
        var surface = try client.createSurface()
        defer { vaDestroySurfaces(display, &surface, 1) }
        var image = VAImage()
        #expect(vaDeriveImage(display, surface, &image) == VA_STATUS_ERROR_OPERATION_FAILED)
        var entrypoints = [VAEntrypoint](repeating: VAEntrypointVLD, count: Int(vaMaxNumEntrypoints(display)))
        var count: Int32 = 0
        try client.check(vaQueryConfigEntrypoints(display, VAProfileH264High, &entrypoints, &count), "entrypoints")
        #expect(Array(entrypoints.prefix(Int(count))) == [VAEntrypointVLD])
        var formats = [VAImageFormat](repeating: VAImageFormat(), count: Int(vaMaxNumImageFormats(display)))
        try client.check(vaQueryImageFormats(display, &formats, &count), "image formats")
        // NV12 and P010 (Main 10 decode); the driver's other formats (P012, P016, 444P, Q416) vtksoft does not map.
        #expect(formats.prefix(Int(count)).map(\.fourcc) == [UInt32(VA_FOURCC_NV12), UInt32(VA_FOURCC_P010)])
        #expect(String(cString: vaQueryVendorString(display)).hasPrefix("VA-API NVDEC driver [direct backend]"))
    }

    /// Who writes SPS/PPS when the client sends no packed headers: i965 only inserts the client's (none
    /// here), radeonsi 24 and vtksoft write their own (../shared/personas/README.md).
    @Test("Without packed headers from the client: i965-gen9 writes no SPS/PPS, radeonsi-24 and vtksoft do",
          arguments: [("i965-gen9", false), ("radeonsi-24", true), ("vtksoft", true)])
    func parameterSetsByPersona(persona: String, writesParameterSets: Bool) throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        try #require(VTKSoftCounters.setPersona(persona, in: owner.display), "vtksoft_display_set_persona")
        let client = VTKSoftVAClient(display: owner.display)
        let stream = try client.encodeOnePicture()
        let types = AnnexBScanner.nalUnits(in: stream).map(\.type)
        #expect(types.contains(.sequenceParameterSet) == writesParameterSets, "\(persona): \(types)")
        #expect(types.contains(.pictureParameterSet) == writesParameterSets, "\(persona): \(types)")
        #expect(types.contains { $0.rawValue == 5 }, "\(persona): an IDR slice in \(types)")
    }
}
