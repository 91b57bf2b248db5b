import CLibVA
import Foundation
import H264Bitstream
import Testing
import VTKTestSupport

/// The hardware-like timing of the personas: pictures run on the display's worker, vaEndPicture returns at
/// once, vaQuerySurfaceStatus says Rendering until the picture is done, vaSyncSurface and vaMapBuffer wait.
@Suite("vtksoft pictures in flight")
struct AsyncPictureTests {
    /// iHD's free Gen12 build encodes H.264 only on EncSliceLP; vtksoft itself (the default) on EncSlice.
    @Test("Three pictures in flight are Rendering, then each coded buffer holds its own picture, in order",
          arguments: [("ihd-gen12", VAEntrypointEncSliceLP, "native"), ("vtksoft", VAEntrypointEncSlice, "native"),
                      // openh264 codes without the driver lock: held, its pictures still wait, and finish in order.
                      ("vtksoft", VAEntrypointEncSlice, "openh264")])
    func picturesInFlight(persona: String, entrypoint: VAEntrypoint, engine: String) throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let display = owner.display
        try #require(VTKSoftCounters.setPersona(persona, in: display), "vtksoft_display_set_persona")
        try #require(VTKSoftCounters.setEncoder(engine, in: display), "vtksoft_display_set_encoder")
        let client = VTKSoftVAClient(display: display)
        var attributes = [VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420)),
                          VAConfigAttrib(type: VAConfigAttribRateControl, value: UInt32(VA_RC_CQP))]
        var config = VAConfigID(VA_INVALID_ID)
        try client.check(vaCreateConfig(display, VAProfileH264Main, entrypoint, &attributes, 2, &config), "vaCreateConfig")
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
            #expect(status == VASurfaceRendering, "\(persona): surface \(source) while the worker is held")
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
        #expect(sizes.allSatisfy { $0 > 0 } && sizes == sizes.sorted() && Set(sizes).count == 3, "\(persona): coded sizes \(sizes) for QP \(qps)")
    }

    @Test("ihd-gen12 offers no EncSlice for H.264")
    func gen12LowPowerOnly() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        try #require(VTKSoftCounters.setPersona("ihd-gen12", in: owner.display), "vtksoft_display_set_persona")
        var config = VAConfigID(VA_INVALID_ID)
        #expect(vaCreateConfig(owner.display, VAProfileH264Main, VAEntrypointEncSlice, nil, 0, &config) == VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT)
    }

    /// What a client may call while a picture is in flight, as on hardware: reading the surface
    /// (vaGetImage, vaDeriveImage) or the coded buffer (vaMapBuffer) waits for the picture, and so does
    /// destroying the surface. Each call runs on its own thread while the worker is held, and the worker is
    /// let go once all four are blocked in the driver (vtksoft_display_waiting_calls); each must then see
    /// the finished picture.
    @Test("vtksoft: with a picture in flight, vaGetImage, vaDeriveImage, vaMapBuffer and vaDestroySurfaces wait for it")
    func callsWaitForThePicture() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        let client = VTKSoftVAClient(display: owner.display)
        let stream = try client.encodeOnePicture()
        var decode = try VTKSoftVAClient.DecodeContext(client, count: 3)

        try #require(VTKSoftCounters.holdWorker(true, in: owner.display))
        for target in decode.targets { try client.submitDecode(stream, context: decode.id, target: target) }
        // Encode too: the coded buffer is written by the worker.
        let encode = try client.submitEncodeOnePicture()
        for surface in decode.targets + [encode.source] {
            var status = VASurfaceReady
            try client.check(vaQuerySurfaceStatus(owner.display, surface, &status), "vaQuerySurfaceStatus")
            #expect(status == VASurfaceRendering, "surface \(surface) while the worker is held")
        }
        let results = ThreadResults()
        let group = DispatchGroup()
        let (getTarget, deriveTarget, destroyTarget) = (decode.targets[0], decode.targets[1], decode.targets[2])
        nonisolated(unsafe) let display = owner.display
        // A thread of its own for each call: the global queues' pool may be as small as the machine's cores, and
        // a call blocked in the driver must not keep the next one from starting.
        func onThread(_ work: @escaping @Sendable () -> Void) {
            group.enter()
            Thread.detachNewThread { work(); group.leave() }
        }
        onThread { results.set("vaGetImage", Result { try VTKSoftVAClient(display: display).luma(getTarget, sync: false) }) }
        onThread { results.set("vaDeriveImage", Result { try VTKSoftVAClient(display: display).derivedLuma(deriveTarget) }) }
        let coded = encode.coded
        onThread { results.set("vaMapBuffer", Result { try VTKSoftVAClient(display: display).codedBytes(coded) }) }
        onThread {
            var surface = destroyTarget
            results.set("vaDestroySurfaces", Result { [vaDestroySurfaces(display, &surface, 1) == VA_STATUS_SUCCESS ? 1 : 0] })
        }
        // Each call is either blocked in the driver or (were it not to wait) already done: only then let go.
        var polls = 0
        while (VTKSoftCounters.waitingCalls(in: owner.display) ?? 0) + results.count < 4, polls < 120_000 {
            usleep(1000)
            polls += 1
        }
        #expect(VTKSoftCounters.waitingCalls(in: owner.display) == 4, "the four calls wait for the held worker")
        try #require(VTKSoftCounters.holdWorker(false, in: owner.display))
        group.wait()
        decode.targets.removeLast()
        defer { decode.destroy(); encode.destroy() }

        for name in ["vaGetImage", "vaDeriveImage"] {
            let luma = try results.get(name).get()
            #expect(VTKSoftVAClient.error(luma) < 3, "\(name) read the decoded picture")
        }
        let bytes = try results.get("vaMapBuffer").get()
        #expect(AnnexBScanner.nalUnits(in: bytes).contains { $0.type == .idrSlice }, "vaMapBuffer: \(bytes.count) coded bytes")
        #expect(try results.get("vaDestroySurfaces").get() == [1])
        var status = VASurfaceReady
        #expect(vaQuerySurfaceStatus(owner.display, destroyTarget, &status) == VA_STATUS_ERROR_INVALID_SURFACE)
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

/// What each background call of a test gave, set from its thread.
private final class ThreadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [String: Result<[UInt8], any Error>] = [:]

    func set(_ name: String, _ result: Result<[UInt8], any Error>) { lock.withLock { results[name] = result } }

    var count: Int { lock.withLock { results.count } }

    func get(_ name: String) throws -> Result<[UInt8], any Error> {
        try lock.withLock { try #require(results[name], "\(name) gave nothing") }
    }
}
