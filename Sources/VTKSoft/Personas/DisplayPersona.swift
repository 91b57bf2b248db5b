import CLibVA

/// Makes one display (a VADisplay, initialised) behave as persona `name` from now on, so that a test can
/// use several personas in one process without touching the environment. Returns 0, or -1 for a display
/// that is not vtksoft's or an unknown name.
@_cdecl("vtksoft_display_set_persona")
public func vtksoftDisplaySetPersona(_ display: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guard let name, let persona = Persona.named(String(cString: name)),
          let dctx = display?.assumingMemoryBound(to: VADisplayContext.self),
          let ctx = dctx.pointee.pDriverContext, let raw = ctx.pointee.pDriverData,
          let vendor = Persona.vendorStrings[persona.name] else { return -1 }
    let driver = Unmanaged<Driver>.fromOpaque(raw).takeUnretainedValue()
    driver.lock.withLock {
        driver.adopt(persona)
        ctx.pointee.max_profiles = Int32(persona.profiles.count)
        ctx.pointee.max_entrypoints = Int32(persona.maxEntrypointCount)
        ctx.pointee.max_image_formats = Int32(persona.imageFormats.count)
        ctx.pointee.str_vendor = UnsafePointer(vendor)
    }
    return 0
}

/// Holds (1) or releases (0) a display's picture worker, so that a test can keep pictures in flight and see
/// VASurfaceRendering without depending on timing. Returns 0, or -1 for a display that is not vtksoft's.
@_cdecl("vtksoft_display_hold_worker")
public func vtksoftDisplayHoldWorker(_ display: UnsafeMutableRawPointer?, _ hold: Int32) -> Int32 {
    guard let dctx = display?.assumingMemoryBound(to: VADisplayContext.self),
          let ctx = dctx.pointee.pDriverContext, let raw = ctx.pointee.pDriverData else { return -1 }
    let driver = Unmanaged<Driver>.fromOpaque(raw).takeUnretainedValue()
    driver.lock.withLock { driver.workerHeld = hold != 0 }
    return 0
}

/// Client calls of a display now waiting for its worker (vaSyncSurface, vaMapBuffer, vaGetImage …), so
/// that a test can know a call on another thread is blocked before it lets the worker go. Returns the
/// count, or -1 for a display that is not vtksoft's.
@_cdecl("vtksoft_display_waiting_calls")
public func vtksoftDisplayWaitingCalls(_ display: UnsafeMutableRawPointer?) -> Int32 {
    guard let dctx = display?.assumingMemoryBound(to: VADisplayContext.self),
          let ctx = dctx.pointee.pDriverContext, let raw = ctx.pointee.pDriverData else { return -1 }
    let driver = Unmanaged<Driver>.fromOpaque(raw).takeUnretainedValue()
    return driver.lock.withLock { Int32(driver.waitingCalls) }
}
