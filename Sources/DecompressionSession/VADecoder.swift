import CLibVA
import PixelConversion
import VideoAcceleration
import VideoDecoding
import VTKMedia

/// What every codec's VA decoder does the same way: the configuration, context and surface pool of a
/// sequence, a surface for each picture of the DPB, rendering a picture's buffers, and reading pictures back
/// after vaSyncSurface, flagging those it answers VA_STATUS_ERROR_DECODING_ERROR for. A codec's accelerator
/// only picks the profile and fills VA's parameter buffers (as GStreamer's `GstVaBaseDec` under its
/// `GstVaH264Dec` and `GstVaH265Dec`).
final class VADecoder {
    let connection: VADisplayConnection
    private var configuration: VAConfiguration?
    private var context: VAContext?
    private var pool: VASurfacePool?
    private var surfaceOf: [PictureID: VASurfaceID] = [:]
    private(set) var codedWidth = 0
    private(set) var codedHeight = 0
    /// Frames that may hold their surface at once, beyond the DPB (set by the session before a sequence).
    var lendable = 0
    /// Pictures whose vaSyncSurface answered VA_STATUS_ERROR_DECODING_ERROR (read back and flagged, not dropped).
    private var syncReportedErrors = Set<PictureID>()

    init(connection: VADisplayConnection) {
        self.connection = connection
    }

    /// The driver's name for a profile, for errors.
    static func name(of profile: VAProfile) -> String { String(cString: vaProfileStr(profile)) }

    /// (Re)creates the configuration, surfaces and context for a sequence, after dropping the previous ones.
    /// `profile` picks the profile from those the driver offers. `surfaceCount` covers the DPB, the picture
    /// being decoded and one waiting for output, and the frames the session may lend (``lendable``), which
    /// are added here. Surfaces lent to frames of the previous sequence stay theirs (the frames keep their pool).
    func configure(width: Int, height: Int, surfaceCount: Int, rtFormat: UInt32, fourcc: UInt32,
                   profile: (_ available: [VAProfile]) throws -> VAProfile) throws {
        shutdown()
        let surfaceCount = surfaceCount + lendable
        let chosen = try profile(connection.profiles())
        let config = try VAConfiguration(connection, profile: chosen, entrypoint: VAEntrypointVLD,
                                         attributes: [VAConfigAttrib(type: VAConfigAttribRTFormat, value: rtFormat)])
        codedWidth = width
        codedHeight = height
        let surfaces = try VASurfaceSet(connection, width: width, height: height, count: surfaceCount, rtFormat: rtFormat, fourcc: fourcc)
        context = try VAContext(connection, configuration: config, surfaces: surfaces, width: width, height: height)
        pool = VASurfacePool(surfaces)
        configuration = config
    }

    /// The surface a picture is decoded into: a free one from the pool, or with `sharing` the one the
    /// picture already has (H.264: the second field of a pair goes into its first field's surface).
    func target(for picture: PictureID, sharing: Bool = false) throws -> VASurfaceID {
        guard context != nil, let pool else { throw DecompressionError.invalidated }
        if sharing, let surface = surfaceOf[picture] { return surface }
        guard let free = pool.acquire() else {
            // The pool is sized from the DPB and the frames a session may lend: fail loudly rather than
            // overwrite a reference or a picture a frame still shows.
            guard lendable > 0 else { throw DecompressionError.internalInconsistency("no free surface for \(picture)") }
            throw DecompressionError.device("no free surface for \(picture): all \(pool.surfaces.ids.count) are held by the DPB "
                + "or by frames not yet released (the session lends at most \(lendable); release frames sooner or lend fewer)")
        }
        surfaceOf[picture] = free
        return free
    }

    /// The surface holding a picture, for the references of a picture's parameters.
    func surface(of picture: PictureID) -> VASurfaceID? { surfaceOf[picture] }

    /// Creates a picture's buffers with `fill` (they are destroyed if it fails) and renders them into `target`
    /// (vaBeginPicture, vaRenderPicture, vaEndPicture).
    func render(into target: VASurfaceID, _ fill: (VAContext, inout [VABufferID]) throws -> Void) throws {
        guard let context else { throw DecompressionError.invalidated }
        var buffers: [VABufferID] = []
        // A picture's buffers: its parameters, matrix, and a parameter and data buffer per slice (H.264); grown rarely.
        buffers.reserveCapacity(16)
        do {
            try fill(context, &buffers)
        } catch {
            context.destroy(buffers: buffers)
            throw error
        }
        try context.render(target: target, buffers: buffers)
    }

    /// Waits for a picture's surface and calls `read` with it. A DECODING_ERROR from vaSyncSurface means the
    /// picture is there with concealed damage: it is read and flagged (``macroblocksInError(_:)``).
    func read<T>(_ picture: PictureID, _ read: (VASurfaceID) throws -> T) throws -> T {
        guard let surface = surfaceOf[picture] else { throw DecompressionError.internalInconsistency("no surface for \(picture)") }
        if try VASurfaceErrors.sync(connection, surface: surface) { syncReportedErrors.insert(picture) }
        return try read(surface)
    }

    /// A decoded picture's surface, waited for (and flagged when vaSyncSurface answers DECODING_ERROR), to
    /// be read back now or lent to a frame (``lend(_:)``).
    func picture(_ picture: PictureID, crop: (x: Int, y: Int, width: Int, height: Int), tenBit: Bool,
                 convertsToAnyFormat: Bool) throws -> SurfacePicture {
        try read(picture) { surface in
            SurfacePicture(connection: connection, surface: surface, codedWidth: codedWidth, codedHeight: codedHeight, crop: crop,
                           tenBit: tenBit, convertsToAnyFormat: convertsToAnyFormat)
        }
    }

    /// The pool the picture's surface is from, for a frame that keeps the surface (it retains it).
    var surfacePool: VASurfacePool? { pool }

    /// Surfaces of the pool held by frames rather than by the decoder (each frame's hold counts).
    var framesHoldingSurfaces: Int { pool.map { $0.holdCount - surfaceOf.count } ?? 0 }

    /// Blocks the driver reports in error for a decoded picture (0 when clean; nil when it does not say). A
    /// picture whose sync reported VA_STATUS_ERROR_DECODING_ERROR counts at least one.
    func macroblocksInError(_ picture: PictureID) -> Int? {
        let reported = surfaceOf[picture].flatMap { VASurfaceErrors.macroblocksInError(connection, surface: $0) }
        guard syncReportedErrors.remove(picture) != nil else { return reported }
        return max(1, reported ?? 1)
    }

    /// The picture left the DPB and has been output (or never will be): its surface is free again.
    func release(_ picture: PictureID) {
        guard let surface = surfaceOf.removeValue(forKey: picture) else { return }
        pool?.release(surface)
    }

    func releaseAll() {
        for picture in Array(surfaceOf.keys) { release(picture) }
    }

    /// Destroys the context, surfaces and configuration (in that order).
    func shutdown() {
        surfaceOf.removeAll()
        context = nil
        pool = nil
        configuration = nil
    }
}
