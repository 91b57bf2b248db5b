import CLibVA
import Glibc

/// Runs `body` on the display's driver with its lock held, turning a thrown ``VAError`` into the
/// status the client gets.
private func call(_ ctx: VADriverContextP?, _ body: (Driver) throws(VAError) -> Void) -> VAStatus {
    guard let ctx, let raw = ctx.pointee.pDriverData else { return VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY) }
    let driver = Unmanaged<Driver>.fromOpaque(raw).takeUnretainedValue()
    return driver.lock.withLock {
        do throws(VAError) {
            try body(driver)
            return VAStatus(VA_STATUS_SUCCESS)
        } catch {
            return error.status
        }
    }
}

/// Turns a C (pointer, count) pair into an array, refusing a null pointer with a non-zero count.
private func array<T>(_ pointer: UnsafePointer<T>?, _ count: Int) throws(VAError) -> [T] {
    guard count >= 0 else { throw .invalidParameter }
    if count == 0 { return [] }
    guard let pointer else { throw .invalidParameter }
    return Array(UnsafeBufferPointer(start: pointer, count: count))
}

private func output<T>(_ pointer: UnsafeMutablePointer<T>?) throws(VAError) -> UnsafeMutablePointer<T> {
    guard let pointer else { throw .invalidParameter }
    return pointer
}

private let unimplemented = VAStatus(VA_STATUS_ERROR_UNIMPLEMENTED)

/// Fills libva's vtables: every entry, so libva never calls through a null pointer. What vtksoft does
/// not do (subpictures, display attributes, video processing, buffer export) answers UNIMPLEMENTED.
/// vaPutSurface draws on X11 (SurfacePresentation.swift).
enum DriverVTable {
    static func install(in ctx: VADriverContextP) {
        guard let vtable = ctx.pointee.vtable else { return }  // libva always gives one
        installObjects(vtable)
        installPictures(vtable)
        installImages(vtable)
        installUnimplemented(vtable)
        // vtable_vpp stays empty: libva answers UNIMPLEMENTED itself for null video-processing hooks.
    }

    private static func installObjects(_ vtable: UnsafeMutablePointer<VADriverVTable>) {
        vtable.pointee.vaTerminate = { ctx in
            guard let ctx, let raw = ctx.pointee.pDriverData else { return VAStatus(VA_STATUS_ERROR_INVALID_DISPLAY) }
            let driver = Unmanaged<Driver>.fromOpaque(raw)
            driver.takeUnretainedValue().lock.withLock { driver.takeUnretainedValue().terminate() }
            driver.release()
            ctx.pointee.pDriverData = nil
            return VAStatus(VA_STATUS_SUCCESS)
        }
        vtable.pointee.vaQueryConfigProfiles = { ctx, list, count in
            call(ctx) { driver throws(VAError) in
                let list = try output(list), count = try output(count)
                let profiles = driver.persona.profiles
                for (i, p) in profiles.enumerated() { list[i] = p }
                count.pointee = Int32(profiles.count)
            }
        }
        vtable.pointee.vaQueryConfigEntrypoints = { ctx, profile, list, count in
            call(ctx) { driver throws(VAError) in
                guard driver.persona.profiles.contains(profile) else { throw .unsupportedProfile }
                let list = try output(list), count = try output(count)
                let entrypoints = driver.persona.entrypoints(profile)
                for (i, e) in entrypoints.enumerated() { list[i] = e }
                count.pointee = Int32(entrypoints.count)
            }
        }
        vtable.pointee.vaGetConfigAttributes = { ctx, profile, entrypoint, list, count in
            call(ctx) { driver throws(VAError) in
                try driver.persona.check(profile, entrypoint)
                guard count >= 0 else { throw .invalidParameter }
                guard count > 0 else { return }
                let attributes = try output(list)
                for i in 0..<Int(count) {
                    attributes[i].value = driver.persona.attribute(attributes[i].type, profile: profile, entrypoint: entrypoint)
                }
            }
        }
        vtable.pointee.vaCreateConfig = { ctx, profile, entrypoint, list, count, id in
            call(ctx) { driver throws(VAError) in
                let out = try output(id)
                out.pointee = try driver.createConfig(profile: profile, entrypoint: entrypoint, attributes: try array(list, Int(count)))
            }
        }
        vtable.pointee.vaDestroyConfig = { ctx, id in
            call(ctx) { driver throws(VAError) in try driver.configs.remove(id) }
        }
        vtable.pointee.vaQueryConfigAttributes = { ctx, id, profile, entrypoint, list, count in
            call(ctx) { driver throws(VAError) in
                let config = try driver.configs.get(id)
                let attributes = driver.configAttributes(config)
                try output(profile).pointee = config.profile
                try output(entrypoint).pointee = config.entrypoint
                let list = try output(list)
                for (i, a) in attributes.enumerated() { list[i] = a }
                try output(count).pointee = Int32(attributes.count)
            }
        }
        vtable.pointee.vaCreateSurfaces = { ctx, width, height, format, count, surfaces in
            call(ctx) { driver throws(VAError) in
                guard width > 0, height > 0, count > 0 else { throw .invalidParameter }
                let out = try output(surfaces)
                let created = try driver.createSurfaces(format: UInt32(bitPattern: format), width: Int(width), height: Int(height), count: Int(count), attributes: [])
                for (i, s) in created.enumerated() { out[i] = s }
            }
        }
        vtable.pointee.vaCreateSurfaces2 = { ctx, format, width, height, surfaces, count, attributes, attributeCount in
            call(ctx) { driver throws(VAError) in
                guard width > 0, height > 0, count > 0, count < 4096, attributeCount < 256 else { throw .invalidParameter }
                let out = try output(surfaces)
                let created = try driver.createSurfaces(format: format, width: Int(width), height: Int(height), count: Int(count),
                                                        attributes: try array(attributes, Int(attributeCount)))
                for (i, s) in created.enumerated() { out[i] = s }
            }
        }
        vtable.pointee.vaDestroySurfaces = { ctx, list, count in
            call(ctx) { driver throws(VAError) in try driver.destroySurfaces(try array(list, Int(count))) }
        }
        vtable.pointee.vaQuerySurfaceAttributes = { ctx, config, list, count in
            call(ctx) { driver throws(VAError) in
                let attributes = try driver.surfaceAttributes(configID: config)
                let count = try output(count)
                guard let list else {
                    count.pointee = UInt32(attributes.count)
                    return
                }
                guard count.pointee >= attributes.count else {
                    count.pointee = UInt32(attributes.count)
                    throw VAError(VA_STATUS_ERROR_MAX_NUM_EXCEEDED)
                }
                for (i, a) in attributes.enumerated() { list[i] = a }
                count.pointee = UInt32(attributes.count)
            }
        }
        vtable.pointee.vaCreateContext = { ctx, config, width, height, _, targets, targetCount, context in
            call(ctx) { driver throws(VAError) in
                let out = try output(context)
                out.pointee = try driver.createContext(configID: config, width: Int(width), height: Int(height),
                                                       renderTargets: try array(targets, Int(targetCount)))
            }
        }
        vtable.pointee.vaDestroyContext = { ctx, id in
            call(ctx) { driver throws(VAError) in
                driver.waitForWorker()
                try driver.contexts.remove(id)
            }
        }
        vtable.pointee.vaCreateBuffer = { ctx, context, type, size, count, data, id in
            call(ctx) { driver throws(VAError) in
                let out = try output(id)
                out.pointee = try driver.createBuffer(contextID: context, type: type, size: Int(size), count: Int(count), data: data.map { UnsafeRawPointer($0) })
            }
        }
        vtable.pointee.vaBufferSetNumElements = { ctx, id, count in
            call(ctx) { driver throws(VAError) in try driver.setElementCount(bufferID: id, count: Int(count)) }
        }
        vtable.pointee.vaMapBuffer = { ctx, id, pointer in
            call(ctx) { driver throws(VAError) in
                let out = try output(pointer)
                out.pointee = try driver.map(bufferID: id)
            }
        }
        vtable.pointee.vaUnmapBuffer = { ctx, id in
            call(ctx) { driver throws(VAError) in _ = try driver.buffers.get(id) }
        }
        vtable.pointee.vaDestroyBuffer = { ctx, id in
            call(ctx) { driver throws(VAError) in try driver.destroyBuffer(id) }
        }
        vtable.pointee.vaBufferInfo = { ctx, id, type, size, count in
            call(ctx) { driver throws(VAError) in
                let buffer = try driver.buffers.get(id)
                try output(type).pointee = buffer.type
                try output(size).pointee = UInt32(buffer.elementSize)
                try output(count).pointee = UInt32(buffer.elementCount)
            }
        }
    }

    private static func installPictures(_ vtable: UnsafeMutablePointer<VADriverVTable>) {
        vtable.pointee.vaBeginPicture = { ctx, context, target in
            call(ctx) { driver throws(VAError) in try driver.beginPicture(contextID: context, target: target) }
        }
        vtable.pointee.vaRenderPicture = { ctx, context, list, count in
            call(ctx) { driver throws(VAError) in
                guard count > 0 else { throw .invalidParameter }
                try driver.renderPicture(contextID: context, bufferIDs: try array(list, Int(count)))
            }
        }
        vtable.pointee.vaEndPicture = { ctx, context in
            call(ctx) { driver throws(VAError) in try driver.endPicture(contextID: context) }
        }
        // Work runs on the display's worker (vaEndPicture only checks and submits): syncing waits for it.
        vtable.pointee.vaSyncSurface = { ctx, surface in
            call(ctx) { driver throws(VAError) in try driver.sync(surfaceID: surface) }
        }
        // Timeouts are not honoured: the wait is for the picture, as VA_TIMEOUT_INFINITE.
        vtable.pointee.vaSyncSurface2 = { ctx, surface, _ in
            call(ctx) { driver throws(VAError) in try driver.sync(surfaceID: surface) }
        }
        vtable.pointee.vaSyncBuffer = { ctx, buffer, _ in
            call(ctx) { driver throws(VAError) in _ = try driver.map(bufferID: buffer) }
        }
        vtable.pointee.vaQuerySurfaceStatus = { ctx, surface, status in
            call(ctx) { driver throws(VAError) in
                let out = try output(status)
                out.pointee = try driver.status(surfaceID: surface)
            }
        }
        vtable.pointee.vaQuerySurfaceError = { ctx, surface, errorStatus, errorInfo in
            call(ctx) { driver throws(VAError) in
                let picture = try driver.surfaces.get(surface)
                guard errorStatus == VAStatus(VA_STATUS_ERROR_DECODING_ERROR) else { throw .invalidParameter }
                let macroblocks = ((picture.width + 15) / 16) * ((picture.height + 15) / 16)
                try output(errorInfo).pointee = UnsafeMutableRawPointer(picture.decodeErrorRecords(macroblocks: macroblocks))
            }
        }
    }

    private static func installImages(_ vtable: UnsafeMutablePointer<VADriverVTable>) {
        vtable.pointee.vaQueryImageFormats = { ctx, list, count in
            call(ctx) { driver throws(VAError) in
                let list = try output(list), count = try output(count)
                let formats = driver.persona.vaImageFormats
                for (i, f) in formats.enumerated() { list[i] = f }
                count.pointee = Int32(formats.count)
            }
        }
        vtable.pointee.vaCreateImage = { ctx, format, width, height, image in
            call(ctx) { driver throws(VAError) in
                let format = try output(format), out = try output(image)
                out.pointee = try driver.createImage(format: format.pointee, width: Int(width), height: Int(height))
            }
        }
        vtable.pointee.vaDeriveImage = { ctx, surface, image in
            call(ctx) { driver throws(VAError) in
                let out = try output(image)
                driver.capture?.record(call: "vaDeriveImage", surface: surface)
                out.pointee = try driver.deriveImage(surfaceID: surface)
            }
        }
        vtable.pointee.vaDestroyImage = { ctx, image in
            call(ctx) { driver throws(VAError) in try driver.destroyImage(image) }
        }
        vtable.pointee.vaGetImage = { ctx, surface, x, y, width, height, image in
            call(ctx) { driver throws(VAError) in
                driver.capture?.record(call: "vaGetImage", surface: surface)
                try driver.getImage(surfaceID: surface, x: Int(x), y: Int(y), width: Int(width), height: Int(height), imageID: image)
            }
        }
        vtable.pointee.vaPutImage = { ctx, surface, image, sx, sy, sw, sh, dx, dy, dw, dh in
            call(ctx) { driver throws(VAError) in
                driver.capture?.record(call: "vaPutImage", surface: surface)
                try driver.putImage(surfaceID: surface, imageID: image,
                                    source: VARectangle(x: Int16(truncatingIfNeeded: sx), y: Int16(truncatingIfNeeded: sy), width: UInt16(truncatingIfNeeded: sw), height: UInt16(truncatingIfNeeded: sh)),
                                    destination: VARectangle(x: Int16(truncatingIfNeeded: dx), y: Int16(truncatingIfNeeded: dy), width: UInt16(truncatingIfNeeded: dw), height: UInt16(truncatingIfNeeded: dh)))
            }
        }
        vtable.pointee.vaSetImagePalette = { _, _, _ in unimplemented }
        vtable.pointee.vaPutSurface = { ctx, surface, draw, sx, sy, sw, sh, dx, dy, dw, dh, clip, clipCount, flags in
            // libva-x11 passes the X Drawable (an XID) as the pointer's value.
            let x11 = ctx.flatMap { ($0.pointee.display_type & UInt(VA_DISPLAY_MAJOR_MASK)) == UInt(VA_DISPLAY_X11) ? $0.pointee.native_dpy : nil }
            return call(ctx) { driver throws(VAError) in
                driver.capture?.record(call: "vaPutSurface", surface: surface)
                try driver.putSurface(surfaceID: surface, x11Display: x11.map(OpaquePointer.init), drawable: UInt(bitPattern: draw),
                                      source: VARectangle(x: sx, y: sy, width: sw, height: sh),
                                      destination: VARectangle(x: dx, y: dy, width: dw, height: dh),
                                      clip: try array(clip.map { UnsafePointer($0) }, Int(clipCount)), flags: flags)
            }
        }
    }

    private static func installUnimplemented(_ vtable: UnsafeMutablePointer<VADriverVTable>) {
        vtable.pointee.vaQuerySubpictureFormats = { _, _, _, _ in unimplemented }
        vtable.pointee.vaCreateSubpicture = { _, _, _ in unimplemented }
        vtable.pointee.vaDestroySubpicture = { _, _ in unimplemented }
        vtable.pointee.vaSetSubpictureImage = { _, _, _ in unimplemented }
        vtable.pointee.vaSetSubpictureChromakey = { _, _, _, _, _ in unimplemented }
        vtable.pointee.vaSetSubpictureGlobalAlpha = { _, _, _ in unimplemented }
        vtable.pointee.vaAssociateSubpicture = { _, _, _, _, _, _, _, _, _, _, _, _, _ in unimplemented }
        vtable.pointee.vaDeassociateSubpicture = { _, _, _, _ in unimplemented }
        vtable.pointee.vaQueryDisplayAttributes = { _, _, _ in unimplemented }
        vtable.pointee.vaGetDisplayAttributes = { _, _, _ in unimplemented }
        vtable.pointee.vaSetDisplayAttributes = { _, _, _ in unimplemented }
        vtable.pointee.vaLockSurface = { _, _, _, _, _, _, _, _, _, _, _ in unimplemented }
        vtable.pointee.vaUnlockSurface = { _, _ in unimplemented }
        vtable.pointee.vaGetSurfaceAttributes = { _, _, _, _ in unimplemented }
        vtable.pointee.vaAcquireBufferHandle = { _, _, _ in unimplemented }
        vtable.pointee.vaReleaseBufferHandle = { _, _ in unimplemented }
        vtable.pointee.vaCreateMFContext = { _, _ in unimplemented }
        vtable.pointee.vaMFAddContext = { _, _, _ in unimplemented }
        vtable.pointee.vaMFReleaseContext = { _, _, _ in unimplemented }
        vtable.pointee.vaMFSubmit = { _, _, _, _ in unimplemented }
        vtable.pointee.vaCreateBuffer2 = { _, _, _, _, _, _, _, _ in unimplemented }
        vtable.pointee.vaQueryProcessingRate = { _, _, _, _ in unimplemented }
        vtable.pointee.vaExportSurfaceHandle = { _, _, _, _, _ in unimplemented }
        vtable.pointee.vaCopy = { _, _, _, _ in unimplemented }
    }
}
