import CLibVA
import Testing
import VTKTestSupport

/// The set-up every in-process encode client of these tests shares, whatever the codec: a vtksoft display
/// (its persona or engine chosen first by `choose`), a CQP config on `profile`, a source surface filled with
/// the gradient, three reconstruction surfaces, a context over all four and a 1 MiB coded buffer.
class EncodeTestClient {
    let owner: VTKSoftDisplay
    let base: VTKSoftVAClient
    var config = VAConfigID(VA_INVALID_ID)
    var context = VAContextID(VA_INVALID_ID)
    var source = VASurfaceID(VA_INVALID_ID)
    var recon = [VASurfaceID](repeating: VASurfaceID(VA_INVALID_ID), count: 3)
    var coded = VABufferID(VA_INVALID_ID)
    var display: VADisplay { owner.display }
    static var size: Int { VTKSoftVAClient.size }

    /// `packed`: VA_ENC_PACKED_HEADER_* the config declares; `choose` runs on the display before the config is made.
    init(profile: VAProfile, entrypoint: VAEntrypoint, packed: Int32, choose: (VADisplay) throws -> Void) throws {
        owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        base = VTKSoftVAClient(display: owner.display)
        try choose(owner.display)
        var attributes = [VAConfigAttrib(type: VAConfigAttribRateControl, value: UInt32(VA_RC_CQP)),
                          VAConfigAttrib(type: VAConfigAttribEncPackedHeaders, value: UInt32(packed))]
        try base.check(vaCreateConfig(display, profile, entrypoint, &attributes, 2, &config), "config")
        source = try base.createSurface()
        try base.fill(source)
        for i in 0..<3 { recon[i] = try base.createSurface() }
        var targets = [source] + recon
        try base.check(vaCreateContext(display, config, Int32(Self.size), Int32(Self.size), VA_PROGRESSIVE, &targets, 4, &context), "context")
        coded = try codedBuffer(1 << 20)
    }

    func codedBuffer(_ size: Int) throws -> VABufferID {
        var id = VABufferID(VA_INVALID_ID)
        try base.check(vaCreateBuffer(display, context, VAEncCodedBufferType, UInt32(size), 1, nil, &id), "coded buffer")
        return id
    }

    deinit {
        vaDestroyBuffer(display, coded)
        vaDestroyContext(display, context)
        var all = [source] + recon
        vaDestroySurfaces(display, &all, Int32(all.count))
        vaDestroyConfig(display, config)
    }
}
