import CLibVA
import Glibc

/// libva 2.17 looks up `__vaDriverInit_1_<minor>` from its own minor version down to 0.
@_cdecl("__vaDriverInit_1_17")
public func vaDriverInit_1_17(_ ctx: VADriverContextP?) -> VAStatus { initializeDriver(ctx) }

@_cdecl("__vaDriverInit_1_0")
public func vaDriverInit_1_0(_ ctx: VADriverContextP?) -> VAStatus { initializeDriver(ctx) }

private func initializeDriver(_ ctx: VADriverContextP?) -> VAStatus {
    guard let ctx, ctx.pointee.vtable != nil else { return VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY) }
    guard let persona = Persona.fromEnvironment() else { return VAStatus(VA_STATUS_ERROR_INVALID_VALUE) }
    ctx.pointee.version_major = Int32(VA_MAJOR_VERSION)
    ctx.pointee.version_minor = Int32(VA_MINOR_VERSION)
    ctx.pointee.max_profiles = Int32(persona.profiles.count)
    ctx.pointee.max_entrypoints = Int32(persona.maxEntrypointCount)
    ctx.pointee.max_attributes = 8
    ctx.pointee.max_image_formats = Int32(persona.imageFormats.count)
    // libva refuses a driver that reports zero of these, even though it has none to offer.
    ctx.pointee.max_subpic_formats = 1
    ctx.pointee.max_display_attributes = 1
    ctx.pointee.str_vendor = UnsafePointer(Persona.vendorStrings[persona.name] ?? vtksoftVendor)
    DriverVTable.install(in: ctx)
    ctx.pointee.pDriverData = Unmanaged.passRetained(Driver(persona: persona)).toOpaque()
    return VAStatus(VA_STATUS_SUCCESS)
}

/// The vendor string of the vtksoft persona with the engine chosen by the environment (lives as long as the
/// process: libva keeps the pointer).
nonisolated(unsafe) private let vtksoftVendor: UnsafeMutablePointer<CChar>? = strdup(Persona.vtksoft.vendor)
