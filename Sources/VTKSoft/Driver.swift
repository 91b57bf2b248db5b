import VTKMedia
import CLibVA
import Glibc

/// The state of one vtksoft display (one vaInitialize): its VA objects, behind one lock.
///
/// Every method is called from the vtable with the lock held (see ``DriverVTable``) and reports
/// failures by throwing the VA status the client should get.
final class Driver: @unchecked Sendable {
    let lock = Lock()
    /// The driver this display behaves as (``Persona``).
    private(set) var persona: Persona
    private let worker: PictureWorker
    /// Pictures submitted to the worker and not finished.
    private var pendingPictures = 0
    /// Holds the worker before its next picture (``vtksoftDisplayHoldWorker``), so a test sees pictures in flight.
    var workerHeld: Bool {
        get { worker.held }
        set { worker.held = newValue }
    }
    var ids = IDSource()
    var configs = ObjectTable<Config>(notFound: .invalidConfig)
    var surfaces = ObjectTable<Surface>(notFound: .invalidSurface)
    var contexts = ObjectTable<Context>(notFound: .invalidContext)
    var buffers = ObjectTable<Buffer>(notFound: .invalidBuffer)
    var images = ObjectTable<Image>(notFound: .invalidImage)
    let capture = ParameterCapture.fromEnvironment()
    /// The encoder engine of this display's encode contexts (the process's choice unless a test set it
    /// through ``vtksoftDisplaySetEncoder``).
    var encoderEngine: EncoderEngine {
        didSet { if persona.name == Persona.vtksoft.name { persona = .vtksoft(engine: encoderEngine) } }
    }
    /// Decode parameters that contradicted their slice data, reported at vaTerminate.
    var violations = ViolationTally()

    init(persona: Persona) {
        self.persona = persona
        worker = PictureWorker(lock: lock)
        encoderEngine = persona.encoder ?? .selected
    }

    /// Behaves as `persona` from now on (``vtksoftDisplaySetPersona``).
    func adopt(_ persona: Persona) {
        waitForWorker()
        self.persona = persona
        encoderEngine = persona.encoder ?? .selected
    }

    /// VA objects of this display that the client has not destroyed.
    var liveObjectCount: Int { configs.count + surfaces.count + contexts.count + buffers.count + images.count }

    /// Frees what the client left behind and reports it (vaTerminate).
    func terminate() {
        waitForWorker()
        // Contexts first: their sessions hold codec state, not VA objects.
        let left = contexts.removeAll() + images.removeAll() + buffers.removeAll() + surfaces.removeAll() + configs.removeAll()
        LiveObjectCounter.terminated(leftOver: left)
        violations.report()
    }

    // MARK: Configs

    func createConfig(profile: VAProfile, entrypoint: VAEntrypoint, attributes: [VAConfigAttrib]) throws(VAError) -> VAConfigID {
        try persona.check(profile, entrypoint)
        // A client that names no mode gets CQP, as FFmpeg assumes.
        var rateControl = entrypoint == VAEntrypointVLD ? 0 : UInt32(VA_RC_CQP)
        var packedHeaders = UInt32(VA_ENC_PACKED_HEADER_NONE)
        for attribute in attributes {
            let supported = persona.attribute(attribute.type, profile: profile, entrypoint: entrypoint)
            guard supported != Persona.notSupported else { throw .attributeNotSupported }
            switch attribute.type {
            case VAConfigAttribRTFormat:
                guard attribute.value & supported != 0, attribute.value & ~supported == 0 else { throw .unsupportedRTFormat }
            case VAConfigAttribRateControl:
                // Exactly one mode, and one we honour.
                guard attribute.value.nonzeroBitCount == 1, attribute.value & supported != 0 else { throw .invalidValue }
                rateControl = attribute.value
            case VAConfigAttribEncPackedHeaders:
                guard attribute.value & ~supported == 0 else { throw .invalidValue }
                packedHeaders = attribute.value
            case VAConfigAttribEncMaxRefFrames:
                // Two counts: L0 in the low 16 bits, L1 in the high 16.
                guard attribute.value & 0xffff <= supported & 0xffff, attribute.value >> 16 <= supported >> 16 else { throw .invalidValue }
            case VAConfigAttribDecSliceMode:
                guard attribute.value == UInt32(VA_DEC_SLICE_MODE_NORMAL) || attribute.value == UInt32(VA_DEC_SLICE_MODE_BASE) && supported & attribute.value != 0 else { throw .invalidValue }
            default:
                // Limits (max sizes, ref frames, slices): a client may restate them, not exceed them.
                guard attribute.value <= supported else { throw .invalidValue }
            }
        }
        return configs.insert(Config(profile: profile, entrypoint: entrypoint, rateControl: rateControl, packedHeaders: packedHeaders), ids: &ids)
    }

    func configAttributes(_ config: Config) -> [VAConfigAttrib] {
        var list = [VAConfigAttrib(type: VAConfigAttribRTFormat, value: persona.attribute(VAConfigAttribRTFormat, profile: config.profile, entrypoint: config.entrypoint))]
        if !config.isDecode {
            list.append(VAConfigAttrib(type: VAConfigAttribRateControl, value: config.rateControl))
            list.append(VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: config.packedHeaders))
        }
        return list
    }

    // MARK: Surfaces

    /// The RT format gives the layout unless a settable VASurfaceAttribPixelFormat names one: then the pixel
    /// format decides, as iHD and Mesa do (libva's test_va_api asks for P010 with VA_RT_FORMAT_YUV420).
    func createSurfaces(format: UInt32, width: Int, height: Int, count: Int, attributes: [VASurfaceAttrib]) throws(VAError) -> [VASurfaceID] {
        guard var layout = SurfaceFormat(rtFormat: format) else { throw .unsupportedRTFormat }
        guard count > 0 else { throw .invalidParameter }
        guard (VTKSoftAbilities.minSize...persona.maxWidth).contains(width),
              (VTKSoftAbilities.minSize...persona.maxHeight).contains(height) else { throw .resolutionNotSupported }
        for attribute in attributes where attribute.flags & UInt32(VA_SURFACE_ATTRIB_SETTABLE) != 0 {
            switch attribute.type {
            case VASurfaceAttribPixelFormat:
                guard let named = SurfaceFormat(fourcc: UInt32(bitPattern: attribute.value.value.i)) else { throw .invalidImageFormat }
                layout = named
            case VASurfaceAttribMemoryType:
                guard UInt32(bitPattern: attribute.value.value.i) & ~UInt32(VA_SURFACE_ATTRIB_MEM_TYPE_VA) == 0 else {
                    throw VAError(VA_STATUS_ERROR_UNSUPPORTED_MEMORY_TYPE)
                }
            case VASurfaceAttribUsageHint:
                break  // Every use is the same to software.
            default:
                throw .attributeNotSupported
            }
        }
        return (0..<count).map { _ in surfaces.insert(Surface(width: width, height: height, format: layout), ids: &ids) }
    }

    func destroySurfaces(_ list: [VASurfaceID]) throws(VAError) {
        // Check all first, so a bad id in the list destroys nothing.
        for id in list { _ = try surfaces.get(id) }
        waitForWorker()
        for context in contexts.ids.compactMap({ try? contexts.get($0) }) {
            if let target = context.renderTarget, list.contains(target) { throw .surfaceBusy }
        }
        for id in list { try surfaces.remove(id) }
    }

    func surfaceAttributes(configID: VAConfigID) throws(VAError) -> [VASurfaceAttrib] {
        let config = try configs.get(configID)
        func attribute(_ type: VASurfaceAttribType, _ value: Int32, settable: Bool = false) -> VASurfaceAttrib {
            var attribute = VASurfaceAttrib()
            attribute.type = type
            attribute.flags = UInt32(VA_SURFACE_ATTRIB_GETTABLE) | (settable ? UInt32(VA_SURFACE_ATTRIB_SETTABLE) : 0)
            attribute.value.type = VAGenericValueTypeInteger
            attribute.value.value.i = value
            return attribute
        }
        return VTKSoftAbilities.surfaceFourccs(for: config.profile).map { attribute(VASurfaceAttribPixelFormat, Int32(bitPattern: $0), settable: true) } + [
            attribute(VASurfaceAttribMinWidth, Int32(VTKSoftAbilities.minSize)),
            attribute(VASurfaceAttribMaxWidth, Int32(persona.maxWidth)),
            attribute(VASurfaceAttribMinHeight, Int32(VTKSoftAbilities.minSize)),
            attribute(VASurfaceAttribMaxHeight, Int32(persona.maxHeight)),
            attribute(VASurfaceAttribMemoryType, Int32(VA_SURFACE_ATTRIB_MEM_TYPE_VA), settable: true),
        ]
    }

    // MARK: Contexts

    func createContext(configID: VAConfigID, width: Int, height: Int, renderTargets: [VASurfaceID]) throws(VAError) -> VAContextID {
        let config = try configs.get(configID)
        guard (1...persona.maxWidth).contains(width), (1...persona.maxHeight).contains(height) else {
            throw .resolutionNotSupported
        }
        for id in renderTargets {
            let surface = try surfaces.get(id)
            if config.isDecode, surface.width < width || surface.height < height { throw .invalidSurface }
        }
        let backend: CodecBackend
        if config.isDecode {
            guard let session = VTKSoftAbilities.isHEVC(config.profile) ? H265DecodeSession(profile: config.profile) as PictureDecoding?
                    : H264DecodeSession(profile: config.profile, interlaced: persona.interlacedDecode) else { throw .allocationFailed }
            backend = .decode(session)
        } else if VTKSoftAbilities.isHEVC(config.profile) {
            backend = .hevcEncode(HEVCEncodeSession(profile: config.profile, rateControl: config.rateControl, packedHeaders: config.packedHeaders,
                                                    policy: persona.packedHeaders, limits: persona.hevcEncodeLimits(config.profile, config.entrypoint)))
        } else {
            switch encoderEngine {
            case .native:
                backend = .nativeEncode(NativeEncodeSession(profile: config.profile, rateControl: config.rateControl,
                                                            packedHeaders: config.packedHeaders, policy: persona.packedHeaders))
            case .openh264:
                backend = .encode(OpenH264EncodeSession(profile: config.profile, rateControl: config.rateControl))
            }
        }
        return contexts.insert(Context(config: config, width: width, height: height, renderTargets: renderTargets, backend: backend), ids: &ids)
    }

    // MARK: Buffers

    func createBuffer(contextID: VAContextID, type: VABufferType, size: Int, count: Int, data: UnsafeRawPointer?) throws(VAError) -> VABufferID {
        let context = try contexts.get(contextID)
        guard size > 0, count > 0, size <= 1 << 28, count <= 1 << 16, size * count <= 1 << 28 else { throw .invalidParameter }
        try BufferRules.check(type: type, size: size, count: count, decode: context.config.isDecode,
                              packedHeaders: encoderEngine == .native || VTKSoftAbilities.isHEVC(context.config.profile), hevc: VTKSoftAbilities.isHEVC(context.config.profile))
        let filled = data != nil && type != VAEncCodedBufferType
        let buffer = Buffer(type: type, elementSize: size, elementCount: count, context: contextID, zeroed: !filled)
        if let data, filled {
            buffer.bytes.copyMemory(from: data, byteCount: size * count)
        }
        return buffers.insert(buffer, ids: &ids)
    }

    func setElementCount(bufferID: VABufferID, count: Int) throws(VAError) {
        let buffer = try buffers.get(bufferID)
        guard count >= 1, count <= buffer.allocatedElements else { throw .invalidParameter }
        buffer.elementCount = count
    }

    func map(bufferID: VABufferID) throws(VAError) -> UnsafeMutableRawPointer {
        let buffer = try buffers.get(bufferID)
        // A coded buffer maps once its picture is coded (va.h: vaMapBuffer waits).
        waitWhile { buffer.pendingPictures > 0 }
        return buffer.type == VAEncCodedBufferType ? buffer.mapCodedSegment() : buffer.bytes
    }

    func destroyBuffer(_ id: VABufferID) throws(VAError) {
        let buffer = try buffers.get(id)
        // The worker has its own copy of rendered parameters; only a coded buffer it is to write must wait.
        waitWhile { buffer.pendingPictures > 0 }
        // An image's buffer goes with the image (vaDestroyImage).
        if buffer.type == VAImageBufferType, images.ids.contains(where: { (try? images.get($0))?.description.buf == id }) {
            throw .invalidBuffer
        }
        try buffers.remove(id)
    }

    // MARK: Pictures

    func beginPicture(contextID: VAContextID, target: VASurfaceID) throws(VAError) {
        let context = try contexts.get(contextID)
        let surface = try surfaces.get(target)
        guard context.renderTarget == nil else { throw .operationFailed }
        if context.config.isDecode, surface.width < context.width || surface.height < context.height { throw .invalidSurface }
        context.renderTarget = target
        context.rendered = []
    }

    func renderPicture(contextID: VAContextID, bufferIDs: [VABufferID]) throws(VAError) {
        let context = try contexts.get(contextID)
        guard context.renderTarget != nil else { throw .operationFailed }
        var batch: [RenderedBuffer] = []
        batch.reserveCapacity(bufferIDs.count)
        for id in bufferIDs {
            let buffer = try buffers.get(id)
            guard buffer.context == contextID, buffer.type != VAEncCodedBufferType else { throw .invalidBuffer }
            batch.append(RenderedBuffer(type: buffer.type, elementSize: buffer.elementSize, elementCount: buffer.elementCount, bytes: buffer.contents))
        }
        // Most pictures come in one vaRenderPicture: the batch is the picture's list, not copied into an empty one.
        if context.rendered.isEmpty { context.rendered = batch } else { context.rendered += batch }
    }

    /// Checks the picture's buffers now, as a driver builds its command buffer in vaEndPicture (what is
    /// wrong with them is vaEndPicture's status), and leaves the work to the worker: vaEndPicture returns at
    /// once, and what goes wrong while working comes from vaSyncSurface or the coded buffer's status.
    func endPicture(contextID: VAContextID) throws(VAError) {
        let context = try contexts.get(contextID)
        guard let target = context.renderTarget else { throw .operationFailed }
        let rendered = context.rendered
        // Whatever happens, the picture is over: the next vaBeginPicture starts clean.
        context.renderTarget = nil
        context.rendered = []
        let surface = try surfaces.get(target)
        let picture = CapturedPicture(capture: capture, context: contextID, surface: target, entrypoint: context.config.entrypoint,
                                      buffers: rendered, hevc: VTKSoftAbilities.isHEVC(context.config.profile))
        let job: PictureJob
        do {
            job = try prepare(context: context, contextID: contextID, surface: surface, rendered: rendered, picture: picture)
        } catch {
            // Refused pictures are captured too, in their turn after those in flight.
            if capture != nil { submit(PictureJob(run: { picture.record(failure: error) }), on: nil) }
            throw error
        }
        submit(job, on: surface)
    }

    /// An encode on one of vtksoft's own engines: checked here, coded on the worker into the coded buffer and the
    /// target surface; captured after coding, with what the driver did (QP, violations, reconstruction MD5).
    private func engineJob<Session: EngineEncodeSession>(_ session: Session, contextID: VAContextID, surface: Surface, rendered: [RenderedBuffer],
                                                         picture: CapturedPicture) throws(VAError) -> PictureJob {
        let coded = try codedBuffer(session.codedBufferID(in: rendered), contextID: contextID)
        let prepared = try session.prepare(rendered, source: surface) { id throws(VAError) in try surfaces.get(id) }
        return PictureJob(coded: coded, reconstruction: prepared.target) { [self] () throws(VAError) in
            do throws(VAError) {
                let output = try session.encode(prepared, hashReconstruction: picture.isRecorded)
                picture.encode = output.captured
                write(output.stream, into: coded)
                picture.record()
            } catch {
                picture.record(failure: error)
                throw error
            }
        }
    }

    /// The checks of vaEndPicture, and the work left for the worker.
    private func prepare(context: Context, contextID: VAContextID, surface: Surface, rendered: [RenderedBuffer],
                         picture: CapturedPicture) throws(VAError) -> PictureJob {
        switch context.backend {
        case .decode(let session):
            var found: [ParameterViolation] = []
            defer { violations.add(found) }
            let unit: PreparedAccessUnit
            do throws(VAError) {
                unit = try session.prepare(rendered, for: surface, contextWidth: context.width, contextHeight: context.height, violations: &found)
            } catch {
                picture.violations = found
                throw error
            }
            picture.violations = found
            return PictureJob { () throws(VAError) in
                defer { picture.record() }
                surface.reconstruction = nil
                try session.decode(unit, into: surface)
                DecodeFaultInjection.pictureDecoded(into: surface)
            }
        case .encode(let session):
            let coded = try codedBuffer(session.codedBufferID(in: rendered), contextID: contextID)
            let prepared = try session.prepare(rendered, source: surface)
            // openh264 codes without the driver lock: it reads the source surface and its own state only.
            var output: Result<[UInt8], VAError> = .failure(.operationFailed)
            return PictureJob(coded: coded, run: { [self] () throws(VAError) in
                picture.record()
                write(try output.get(), into: coded)
            }, unlocked: {
                output = Result { () throws(VAError) in try session.encode(prepared, source: surface) }
            })
        case .hevcEncode(let session):
            return try engineJob(session, contextID: contextID, surface: surface, rendered: rendered, picture: picture)
        case .nativeEncode(let session):
            return try engineJob(session, contextID: contextID, surface: surface, rendered: rendered, picture: picture)
        }
    }

    /// Hands `job` to the worker; `surface` (the render target) and what the job writes read as Rendering
    /// until it is done.
    private func submit(_ job: PictureJob, on surface: Surface?) {
        let reconstruction = job.reconstruction.flatMap { $0 === surface ? nil : $0 }
        surface?.pendingPictures += 1
        surface?.pictureError = nil
        reconstruction?.pendingPictures += 1
        job.coded?.pendingPictures += 1
        pendingPictures += 1
        // Decode pictures may run on the client thread that waits for them (see PictureWorker).
        let decodes = job.coded == nil && job.reconstruction == nil && job.unlocked == nil
        worker.submit(PictureWorker.Entry(runsOnWaiter: decodes, unlocked: job.unlocked) { [self] in
            do throws(VAError) { try job.run() } catch {
                surface?.pictureError = error
                // A coded buffer whose picture failed holds nothing, flagged as bad.
                job.coded?.codedLength = 0
                job.coded?.codedStatus = UInt32(VA_CODED_BUF_STATUS_BAD_BITSTREAM)
            }
            surface?.pendingPictures -= 1
            reconstruction?.pendingPictures -= 1
            job.coded?.pendingPictures -= 1
            pendingPictures -= 1
        })
    }

    /// The client polls (vaQuerySurfaceStatus): the worker starts on the pictures it submitted, as a GPU does.
    func startWorker() {
        worker.start()
    }

    /// vaSyncSurface: waits for the surface's pictures; the error of the last one, else DECODING_ERROR when
    /// the decoder concealed damage (details in vaQuerySurfaceError), as iHD reports it.
    func sync(surfaceID: VASurfaceID) throws(VAError) {
        let surface = try surfaces.get(surfaceID)
        waitWhile { surface.pendingPictures > 0 }
        if let error = surface.pictureError { throw error }
        if surface.concealedMacroblocks > 0 { throw .decodingError }
    }

    /// vaQuerySurfaceStatus: Rendering while the worker has a picture for it.
    func status(surfaceID: VASurfaceID) throws(VAError) -> VASurfaceStatus {
        let rendering = try surfaces.get(surfaceID).pendingPictures > 0
        if rendering { startWorker() }
        return rendering ? VASurfaceRendering : VASurfaceReady
    }

    /// Client calls waiting for the worker now (``vtksoftDisplayWaitingCalls``).
    private(set) var waitingCalls = 0

    /// Waits for the worker while `busy` (the lock is released meanwhile), counted in ``waitingCalls``.
    private func waitWhile(_ busy: () -> Bool) {
        waitingCalls += 1
        defer { waitingCalls -= 1 }
        worker.wait(while: busy)
    }

    /// Waits until the pictures submitted for `surface` are done.
    func waitUntilDone(_ surface: Surface) {
        waitWhile { surface.pendingPictures > 0 }
    }

    /// Waits until the worker is idle (before objects it may be using go away).
    func waitForWorker() {
        waitWhile { pendingPictures > 0 }
    }

    private func codedBuffer(_ id: VABufferID, contextID: VAContextID) throws(VAError) -> Buffer {
        let coded = try buffers.get(id)
        guard coded.type == VAEncCodedBufferType, coded.context == contextID else { throw .invalidBuffer }
        return coded
    }

    /// A stream that does not fit: nothing written, the overflow bit in the segment status (i965 flags it
    /// when the buffer is mapped; vaSyncSurface succeeds).
    private func write(_ stream: [UInt8], into coded: Buffer) {
        guard stream.count <= coded.codedCapacity else {
            coded.codedLength = 0
            coded.codedStatus = UInt32(VA_CODED_BUF_STATUS_SLICE_OVERFLOW_MASK)
            return
        }
        stream.withUnsafeBytes { bytes in
            if let from = bytes.bindMemory(to: UInt8.self).baseAddress { coded.codedPayload.update(from: from, count: stream.count) }
        }
        coded.codedLength = stream.count
        coded.codedStatus = 0
    }

    // MARK: Images

    func createImage(format: VAImageFormat, width: Int, height: Int) throws(VAError) -> VAImage {
        guard (1...persona.maxWidth).contains(width), (1...persona.maxHeight).contains(height) else { throw .invalidParameter }
        let layout = try ImageLayout(fourcc: format.fourcc, width: width, height: height)
        let buffer = Buffer(type: VAImageBufferType, elementSize: layout.dataSize, elementCount: 1, context: nil)
        let bufferID = buffers.insert(buffer, ids: &ids)
        let imageID = images.insert(ids: &ids) { Image(description: layout.vaImage(id: $0, buffer: bufferID), derivedFrom: nil) }
        return try images.get(imageID).description
    }

    func deriveImage(surfaceID: VASurfaceID) throws(VAError) -> VAImage {
        let surface = try surfaces.get(surfaceID)
        try persona.imageAccess.checkDerive()
        waitWhile { surface.pendingPictures > 0 }
        let layout = ImageLayout(surface: surface)
        let bufferID = buffers.insert(Buffer(aliasing: surface), ids: &ids)
        let imageID = images.insert(ids: &ids) { Image(description: layout.vaImage(id: $0, buffer: bufferID), derivedFrom: surfaceID) }
        return try images.get(imageID).description
    }

    func destroyImage(_ id: VAImageID) throws(VAError) {
        let image = try images.remove(id)
        try? buffers.remove(image.description.buf)
    }

    func getImage(surfaceID: VASurfaceID, x: Int, y: Int, width: Int, height: Int, imageID: VAImageID) throws(VAError) {
        let surface = try surfaces.get(surfaceID)
        waitWhile { surface.pendingPictures > 0 }
        let image = try images.get(imageID)
        let buffer = try buffers.get(image.description.buf)
        guard x >= 0, y >= 0, width > 0, height > 0, x & 1 == 0, y & 1 == 0,
              x + width <= surface.width, y + height <= surface.height,
              width <= Int(image.description.width), height <= Int(image.description.height) else { throw .invalidParameter }
        let source = PlanarPixels(surface: surface, x: x, y: y)
        let destination = PlanarPixels(base: buffer.bytes, image: image.description, x: 0, y: 0)
        if image.derivedFrom == surfaceID, x == 0, y == 0 { return }  // Same memory already.
        try destination.copy(from: source, width: width, height: height)
    }

    func putImage(surfaceID: VASurfaceID, imageID: VAImageID, source: VARectangle, destination: VARectangle) throws(VAError) {
        let surface = try surfaces.get(surfaceID)
        waitWhile { surface.pendingPictures > 0 }
        let image = try images.get(imageID)
        let buffer = try buffers.get(image.description.buf)
        // No scaler: the rectangles must be the same size.
        guard source.width == destination.width, source.height == destination.height else { throw .invalidParameter }
        let sx = Int(source.x), sy = Int(source.y), dx = Int(destination.x), dy = Int(destination.y)
        let width = Int(source.width), height = Int(source.height)
        guard sx >= 0, sy >= 0, dx >= 0, dy >= 0, width > 0, height > 0,
              (sx | sy | dx | dy) & 1 == 0,
              sx + width <= Int(image.description.width), sy + height <= Int(image.description.height),
              dx + width <= surface.width, dy + height <= surface.height else { throw .invalidParameter }
        if image.derivedFrom == surfaceID, sx == dx, sy == dy { return }
        surface.releaseFromDecoder()  // libavcodec's references stay as they are.
        surface.reconstruction = nil  // New pixels: the kept reconstruction no longer describes the surface.
        let from = PlanarPixels(base: buffer.bytes, image: image.description, x: sx, y: sy)
        let to = PlanarPixels(surface: surface, x: dx, y: dy)
        try to.copy(from: from, width: width, height: height)
    }
}
