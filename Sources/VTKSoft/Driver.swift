import CLibVA
import Glibc

/// The state of one vtksoft display (one vaInitialize): its VA objects, behind one lock.
///
/// Every method is called from the vtable with the lock held (see ``DriverVTable``) and reports
/// failures by throwing the VA status the client should get.
final class Driver: @unchecked Sendable {
    let lock = DriverLock()
    var ids = IDSource()
    var configs = ObjectTable<Config>(notFound: .invalidConfig)
    var surfaces = ObjectTable<Surface>(notFound: .invalidSurface)
    var contexts = ObjectTable<Context>(notFound: .invalidContext)
    var buffers = ObjectTable<Buffer>(notFound: .invalidBuffer)
    var images = ObjectTable<Image>(notFound: .invalidImage)
    let capture = ParameterCapture.fromEnvironment()
    /// Decode parameters that contradicted their slice data, reported at vaTerminate.
    var violations = ViolationTally()

    /// VA objects of this display that the client has not destroyed.
    var liveObjectCount: Int { configs.count + surfaces.count + contexts.count + buffers.count + images.count }

    /// Frees what the client left behind and reports it (vaTerminate).
    func terminate() {
        // Contexts first: their sessions hold codec state, not VA objects.
        let left = contexts.removeAll() + images.removeAll() + buffers.removeAll() + surfaces.removeAll() + configs.removeAll()
        LiveObjectCounter.terminated(leftOver: left)
        violations.report()
    }

    // MARK: Configs

    func createConfig(profile: VAProfile, entrypoint: VAEntrypoint, attributes: [VAConfigAttrib]) throws(VAError) -> VAConfigID {
        try Capabilities.check(profile, entrypoint)
        var rateControl = entrypoint == VAEntrypointEncSlice ? UInt32(VA_RC_CQP) : 0
        for attribute in attributes {
            let supported = Capabilities.attribute(attribute.type, entrypoint: entrypoint, profile: profile)
            guard supported != Capabilities.notSupported else { throw .attributeNotSupported }
            switch attribute.type {
            case VAConfigAttribRTFormat:
                guard attribute.value & supported != 0, attribute.value & ~supported == 0 else { throw .unsupportedRTFormat }
            case VAConfigAttribRateControl:
                // Exactly one mode, and one we honour.
                guard attribute.value.nonzeroBitCount == 1, attribute.value & supported != 0 else { throw .invalidValue }
                rateControl = attribute.value
            case VAConfigAttribEncPackedHeaders:
                guard attribute.value == UInt32(VA_ENC_PACKED_HEADER_NONE) else { throw .invalidValue }
            case VAConfigAttribDecSliceMode:
                guard attribute.value == UInt32(VA_DEC_SLICE_MODE_NORMAL) else { throw .invalidValue }
            default:
                // Limits (max sizes, ref frames, slices): a client may restate them, not exceed them.
                guard attribute.value <= supported else { throw .invalidValue }
            }
        }
        return configs.insert(Config(profile: profile, entrypoint: entrypoint, rateControl: rateControl), ids: &ids)
    }

    func configAttributes(_ config: Config) -> [VAConfigAttrib] {
        var list = [VAConfigAttrib(type: VAConfigAttribRTFormat, value: Capabilities.rtFormats(for: config.profile))]
        if !config.isDecode {
            list.append(VAConfigAttrib(type: VAConfigAttribRateControl, value: config.rateControl))
            list.append(VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: UInt32(VA_ENC_PACKED_HEADER_NONE)))
        }
        return list
    }

    // MARK: Surfaces

    func createSurfaces(format: UInt32, width: Int, height: Int, count: Int, attributes: [VASurfaceAttrib]) throws(VAError) -> [VASurfaceID] {
        guard let layout = SurfaceFormat(rtFormat: format) else { throw .unsupportedRTFormat }
        guard count > 0 else { throw .invalidParameter }
        guard (Capabilities.minSize...Capabilities.maxSize).contains(width),
              (Capabilities.minSize...Capabilities.maxSize).contains(height) else { throw .resolutionNotSupported }
        for attribute in attributes where attribute.flags & UInt32(VA_SURFACE_ATTRIB_SETTABLE) != 0 {
            switch attribute.type {
            case VASurfaceAttribPixelFormat:
                guard UInt32(bitPattern: attribute.value.value.i) == layout.fourcc else { throw .invalidImageFormat }
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
        return Capabilities.surfaceFourccs(for: config.profile).map { attribute(VASurfaceAttribPixelFormat, Int32(bitPattern: $0), settable: true) } + [
            attribute(VASurfaceAttribMinWidth, Int32(Capabilities.minSize)),
            attribute(VASurfaceAttribMaxWidth, Int32(Capabilities.maxSize)),
            attribute(VASurfaceAttribMinHeight, Int32(Capabilities.minSize)),
            attribute(VASurfaceAttribMaxHeight, Int32(Capabilities.maxSize)),
            attribute(VASurfaceAttribMemoryType, Int32(VA_SURFACE_ATTRIB_MEM_TYPE_VA), settable: true),
        ]
    }

    // MARK: Contexts

    func createContext(configID: VAConfigID, width: Int, height: Int, renderTargets: [VASurfaceID]) throws(VAError) -> VAContextID {
        let config = try configs.get(configID)
        guard (1...Capabilities.maxSize).contains(width), (1...Capabilities.maxSize).contains(height) else {
            throw .resolutionNotSupported
        }
        for id in renderTargets {
            let surface = try surfaces.get(id)
            if config.isDecode, surface.width < width || surface.height < height { throw .invalidSurface }
        }
        let backend: CodecBackend
        if config.isDecode {
            guard let session = Capabilities.isHEVC(config.profile) ? H265DecodeSession(profile: config.profile) as PictureDecoding?
                    : H264DecodeSession(profile: config.profile) else { throw .allocationFailed }
            backend = .decode(session)
        } else {
            backend = .encode(H264EncodeSession(profile: config.profile, rateControl: config.rateControl))
        }
        return contexts.insert(Context(config: config, width: width, height: height, renderTargets: renderTargets, backend: backend), ids: &ids)
    }

    // MARK: Buffers

    func createBuffer(contextID: VAContextID, type: VABufferType, size: Int, count: Int, data: UnsafeRawPointer?) throws(VAError) -> VABufferID {
        let context = try contexts.get(contextID)
        guard size > 0, count > 0, size <= 1 << 28, count <= 1 << 16, size * count <= 1 << 28 else { throw .invalidParameter }
        try BufferRules.check(type: type, size: size, count: count, decode: context.config.isDecode, hevc: Capabilities.isHEVC(context.config.profile))
        let buffer = Buffer(type: type, elementSize: size, elementCount: count, context: contextID)
        if let data, type != VAEncCodedBufferType {
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
        return buffer.type == VAEncCodedBufferType ? buffer.mapCodedSegment() : buffer.bytes
    }

    func destroyBuffer(_ id: VABufferID) throws(VAError) {
        let buffer = try buffers.get(id)
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
        for id in bufferIDs {
            let buffer = try buffers.get(id)
            guard buffer.context == contextID, buffer.type != VAEncCodedBufferType else { throw .invalidBuffer }
            batch.append(RenderedBuffer(type: buffer.type, elementSize: buffer.elementSize, elementCount: buffer.elementCount, bytes: buffer.contents))
        }
        context.rendered += batch
    }

    func endPicture(contextID: VAContextID) throws(VAError) {
        let context = try contexts.get(contextID)
        guard let target = context.renderTarget else { throw .operationFailed }
        let rendered = context.rendered
        // Whatever happens, the picture is over: the next vaBeginPicture starts clean.
        context.renderTarget = nil
        context.rendered = []
        let surface = try surfaces.get(target)
        switch context.backend {
        case .decode(let session):
            var found: [ParameterViolation] = []
            defer {
                violations.add(found)
                capture?.record(context: contextID, surface: target, entrypoint: context.config.entrypoint, buffers: rendered, violations: found,
                                hevc: Capabilities.isHEVC(context.config.profile))
            }
            try session.decode(rendered, into: surface, contextWidth: context.width, contextHeight: context.height, violations: &found)
        case .encode(let session):
            capture?.record(context: contextID, surface: target, entrypoint: context.config.entrypoint, buffers: rendered)
            let codedID = try session.codedBufferID(in: rendered)
            let coded = try buffers.get(codedID)
            guard coded.type == VAEncCodedBufferType, coded.context == contextID else { throw .invalidBuffer }
            let stream = try session.encode(rendered, source: surface)
            guard stream.count <= coded.codedCapacity else {
                coded.codedLength = 0
                coded.codedStatus = UInt32(VA_CODED_BUF_STATUS_SLICE_OVERFLOW_MASK)
                throw .notEnoughBuffer
            }
            stream.withUnsafeBytes { coded.codedPayload.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: stream.count) }
            coded.codedLength = stream.count
            coded.codedStatus = 0
        }
    }

    // MARK: Images

    func createImage(format: VAImageFormat, width: Int, height: Int) throws(VAError) -> VAImage {
        guard (1...Capabilities.maxSize).contains(width), (1...Capabilities.maxSize).contains(height) else { throw .invalidParameter }
        let layout = try ImageLayout(fourcc: format.fourcc, width: width, height: height)
        let buffer = Buffer(type: VAImageBufferType, elementSize: layout.dataSize, elementCount: 1, context: nil)
        let bufferID = buffers.insert(buffer, ids: &ids)
        let imageID = images.insert(ids: &ids) { Image(description: layout.vaImage(id: $0, buffer: bufferID), derivedFrom: nil) }
        return try images.get(imageID).description
    }

    func deriveImage(surfaceID: VASurfaceID) throws(VAError) -> VAImage {
        let surface = try surfaces.get(surfaceID)
        let layout = ImageLayout(surface: surface)
        let bufferID = buffers.insert(Buffer(aliasing: surface.memory, size: surface.memory.size), ids: &ids)
        let imageID = images.insert(ids: &ids) { Image(description: layout.vaImage(id: $0, buffer: bufferID), derivedFrom: surfaceID) }
        return try images.get(imageID).description
    }

    func destroyImage(_ id: VAImageID) throws(VAError) {
        let image = try images.remove(id)
        try? buffers.remove(image.description.buf)
    }

    func getImage(surfaceID: VASurfaceID, x: Int, y: Int, width: Int, height: Int, imageID: VAImageID) throws(VAError) {
        let surface = try surfaces.get(surfaceID)
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
        let from = PlanarPixels(base: buffer.bytes, image: image.description, x: sx, y: sy)
        let to = PlanarPixels(surface: surface, x: dx, y: dy)
        try to.copy(from: from, width: width, height: height)
    }
}
