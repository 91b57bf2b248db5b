import CLibVA
import Testing
import VTKTestSupport

/// The set-up every in-process encode client of these tests shares, whatever the codec: a vtksoft display
/// (its persona or engine chosen first by `choose`), a CQP config on `profile`, a source surface filled with
/// the gradient, `reconstructions` more surfaces (three unless told), a context over all of them and a coded
/// buffer (1 MiB unless told).
class EncodeTestClient {
    let owner: VTKSoftDisplay
    let base: VTKSoftVAClient
    var config = VAConfigID(VA_INVALID_ID)
    var context = VAContextID(VA_INVALID_ID)
    var source = VASurfaceID(VA_INVALID_ID)
    var recon: [VASurfaceID] = []
    var coded = VABufferID(VA_INVALID_ID)
    var display: VADisplay { owner.display }
    static var size: Int { VTKSoftVAClient.size }
    private var destroyed = false

    /// `packed`: VA_ENC_PACKED_HEADER_* the config declares (nil: no such attribute); `attributes` go before
    /// the rate control one; `choose` runs on the display before the config is made.
    init(profile: VAProfile, entrypoint: VAEntrypoint = VAEntrypointEncSlice, packed: Int32?, attributes: [VAConfigAttrib] = [],
         reconstructions: Int = 3, codedBytes: Int = 1 << 20, choose: (VADisplay) throws -> Void = { _ in }) throws {
        owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        base = VTKSoftVAClient(display: owner.display)
        try choose(owner.display)
        var attributes = attributes + [VAConfigAttrib(type: VAConfigAttribRateControl, value: UInt32(VA_RC_CQP))]
        if let packed { attributes.append(VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: UInt32(packed))) }
        try base.check(vaCreateConfig(display, profile, entrypoint, &attributes, Int32(attributes.count), &config), "config")
        source = try base.createSurface()
        try base.fill(source)
        recon = try (0..<reconstructions).map { _ in try base.createSurface() }
        var targets = [source] + recon
        try base.check(vaCreateContext(display, config, Int32(Self.size), Int32(Self.size), VA_PROGRESSIVE, &targets, Int32(targets.count), &context), "context")
        coded = try codedBuffer(codedBytes)
    }

    func codedBuffer(_ size: Int) throws -> VABufferID {
        var id = VABufferID(VA_INVALID_ID)
        try base.check(vaCreateBuffer(display, context, VAEncCodedBufferType, UInt32(size), 1, nil, &id), "coded buffer")
        return id
    }

    /// vaBeginPicture on the source, vaRenderPicture of `buffers` (destroyed after), and vaEndPicture's status.
    func endPicture(_ buffers: [VABufferID]) throws -> VAStatus {
        var buffers = buffers
        defer { for b in buffers { vaDestroyBuffer(display, b) } }
        try base.check(vaBeginPicture(display, context, source), "vaBeginPicture")
        try base.check(vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
        return vaEndPicture(display, context)
    }

    /// What one picture gave: vaEndPicture's status, vaSyncSurface's (when vaEndPicture succeeded), the coded bytes.
    struct Result { var end: VAStatus; var sync: VAStatus = VA_STATUS_SUCCESS; var bytes: [UInt8] = [] }

    /// Encodes the source with the sequence, picture and slice parameters `s`, `p`, `slice`.
    func encode<S, P, L>(_ s: S, _ p: P, _ slice: L) throws -> Result {
        let buffers = [try base.createBuffer(context, VAEncSequenceParameterBufferType, s),
                       try base.createBuffer(context, VAEncPictureParameterBufferType, p),
                       try base.createBuffer(context, VAEncSliceParameterBufferType, slice)]
        var result = Result(end: try endPicture(buffers))
        guard result.end == VA_STATUS_SUCCESS else { return result }
        result.sync = vaSyncSurface(display, source)
        if result.sync == VA_STATUS_SUCCESS { result.bytes = try base.codedBytes(coded) }
        return result
    }

    /// Destroys the coded buffer, context, surfaces and config (once); the display stays open.
    func destroyObjects() {
        guard !destroyed else { return }
        destroyed = true
        vaDestroyBuffer(display, coded)
        vaDestroyContext(display, context)
        var all = [source] + recon
        vaDestroySurfaces(display, &all, Int32(all.count))
        vaDestroyConfig(display, config)
    }

    /// Destroys every object and the display; returns how many objects were alive before vaTerminate.
    func close() -> Int? {
        destroyObjects()
        let live = VTKSoftCounters.live(in: display)
        owner.terminate()
        return live
    }

    deinit { destroyObjects() }
}

extension EncodeTestClient {
    /// Sequence parameters of a 64x64 H.265 Main CQP stream: CTB 2^`ctbLog2` over 8x8 coding blocks, 4x4 to 32x32
    /// transforms two levels deep.
    static func mainSequence(ctbLog2: Int) -> VAEncSequenceParameterBufferHEVC {
        var s = VAEncSequenceParameterBufferHEVC()
        s.general_profile_idc = 1
        s.general_level_idc = 30
        s.intra_period = 30
        s.intra_idr_period = 30
        s.ip_period = 1
        s.pic_width_in_luma_samples = UInt16(size)
        s.pic_height_in_luma_samples = UInt16(size)
        s.seq_fields.bits.chroma_format_idc = 1
        s.log2_min_luma_coding_block_size_minus3 = 0
        s.log2_diff_max_min_luma_coding_block_size = UInt8(ctbLog2 - 3)
        s.log2_min_transform_block_size_minus2 = 0
        s.log2_diff_max_min_transform_block_size = 3
        s.max_transform_hierarchy_depth_inter = 2
        s.max_transform_hierarchy_depth_intra = 2
        return s
    }

    /// An H.265 encode reference entry: a short-term picture before the current one (RPS StCurrBefore).
    static func hevcEntry(_ surface: VASurfaceID, poc: Int32) -> VAPictureHEVC {
        var p = VAPictureHEVC()
        p.picture_id = surface
        p.pic_order_cnt = poc
        p.flags = UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE)
        return p
    }
}
