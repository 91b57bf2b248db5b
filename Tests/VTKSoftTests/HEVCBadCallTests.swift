import CLibVA
import Testing
import VTKTestSupport

/// What vtksoft accepts for H.265, as hardware drivers do: decode only, Main in 8 bits, Main 10 in 8 or 10
/// bits (NV12 or P010 surfaces), H.265 buffers of the right sizes only.
@Suite("H.265 VA calls to vtksoft", .serialized, .enabled(if: VTKSoftDriverLocation.directory != nil, "\(VTKSoftDriverLocation.missingMessage)"))
struct HEVCBadCallTests {
    @Test("configs, surfaces, images and buffers for H.265")
    func configsAndBuffers() throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        defer { owner.terminate() }
        let dpy = owner.display
        var config = VAConfigID(VA_INVALID_ID)
        // vtksoft encodes HEVC on EncSlice; EncSliceLP is iHD's (its persona), not vtksoft's own.
        expectStatus(vaCreateConfig(dpy, VAProfileHEVCMain, VAEntrypointEncSliceLP, nil, 0, &config), VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT, "HEVC EncSliceLP")
        var tenBit = VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420_10))
        expectStatus(vaCreateConfig(dpy, VAProfileHEVCMain, VAEntrypointVLD, &tenBit, 1, &config), VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT, "Main in 10 bits")
        var eightBit = VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420))
        expectStatus(vaCreateConfig(dpy, VAProfileHEVCMain10, VAEntrypointVLD, &eightBit, 1, &config), VA_STATUS_SUCCESS, "Main 10 in 8 bits")
        vaDestroyConfig(dpy, config)
        expectStatus(vaCreateConfig(dpy, VAProfileHEVCMain10, VAEntrypointVLD, &tenBit, 1, &config), VA_STATUS_SUCCESS, "Main 10 in 10 bits")
        defer { vaDestroyConfig(dpy, config) }

        var surfaces = [VASurfaceID](repeating: 0, count: 2)
        var p010 = VASurfaceAttrib()
        p010.type = VASurfaceAttribPixelFormat
        p010.flags = UInt32(VA_SURFACE_ATTRIB_SETTABLE)
        p010.value.type = VAGenericValueTypeInteger
        p010.value.value.i = Int32(bitPattern: UInt32(VA_FOURCC_P010))
        var yv12 = p010
        yv12.value.value.i = Int32(bitPattern: UInt32(VA_FOURCC_YV12))
        expectStatus(vaCreateSurfaces(dpy, UInt32(VA_RT_FORMAT_YUV420_10), 64, 64, &surfaces, 2, &yv12, 1), VA_STATUS_ERROR_INVALID_IMAGE_FORMAT, "YV12, a layout vtksoft lacks")
        expectStatus(vaCreateSurfaces(dpy, UInt32(VA_RT_FORMAT_YUV420_10), 64, 64, &surfaces, 2, &p010, 1), VA_STATUS_SUCCESS, "P010 surfaces")
        defer { vaDestroySurfaces(dpy, &surfaces, 2) }
        var image = VAImage()
        expectStatus(vaDeriveImage(dpy, surfaces[0], &image), VA_STATUS_SUCCESS, "derive P010")
        #expect(image.format.fourcc == UInt32(VA_FOURCC_P010))
        vaDestroyImage(dpy, image.image_id)

        var context = VAContextID(VA_INVALID_ID)
        expectStatus(vaCreateContext(dpy, config, 64, 64, VA_PROGRESSIVE, &surfaces, 2, &context), VA_STATUS_SUCCESS, "context")
        defer { vaDestroyContext(dpy, context) }
        var buffer = VABufferID(VA_INVALID_ID)
        var h264 = VAPictureParameterBufferH264()
        expectStatus(vaCreateBuffer(dpy, context, VAPictureParameterBufferType, UInt32(MemoryLayout<VAPictureParameterBufferH264>.size), 1, &h264, &buffer),
                     VA_STATUS_ERROR_INVALID_PARAMETER, "an H.264 picture buffer")
        var hevc = VAPictureParameterBufferHEVC()
        expectStatus(vaCreateBuffer(dpy, context, VAPictureParameterBufferType, UInt32(MemoryLayout<VAPictureParameterBufferHEVC>.size), 1, &hevc, &buffer),
                     VA_STATUS_SUCCESS, "an H.265 picture buffer")
        vaDestroyBuffer(dpy, buffer)
        // A picture with parameters but no slice: refused, and the context still usable.
        expectStatus(vaCreateBuffer(dpy, context, VAPictureParameterBufferType, UInt32(MemoryLayout<VAPictureParameterBufferHEVC>.size), 1, &hevc, &buffer),
                     VA_STATUS_SUCCESS, "picture buffer")
        expectStatus(vaBeginPicture(dpy, context, surfaces[0]), VA_STATUS_SUCCESS, "begin")
        expectStatus(vaRenderPicture(dpy, context, &buffer, 1), VA_STATUS_SUCCESS, "render")
        expectStatus(vaEndPicture(dpy, context), VA_STATUS_ERROR_INVALID_PARAMETER, "end without slices")
        vaDestroyBuffer(dpy, buffer)
    }

    /// libva-utils' test_va_api (not packaged by Debian) makes these calls; iHD and Mesa pass them.
    /// VAAPICreateSurfaces: a Main 10 decode config, VA_RT_FORMAT_YUV420 and a P010 pixel format, at sizes
    /// from 16x16 to 4096x2160: the pixel-format attribute decides the layout.
    @Test("test_va_api: P010 surfaces asked for with VA_RT_FORMAT_YUV420 and a pixel-format attribute", arguments: [(16, 16), (352, 288), (1920, 1080), (4096, 2160)])
    func pixelFormatDecidesLayout(_ size: (Int, Int)) throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        defer { owner.terminate() }
        let dpy = owner.display
        for (fourcc, rtFormat) in [(VA_FOURCC_P010, VA_RT_FORMAT_YUV420), (VA_FOURCC_NV12, VA_RT_FORMAT_YUV420_10), (VA_FOURCC_P010, VA_RT_FORMAT_YUV420_10)] {
            var surface = VASurfaceID(VA_INVALID_ID)
            var attribute = VASurfaceAttrib()
            attribute.type = VASurfaceAttribPixelFormat
            attribute.flags = UInt32(VA_SURFACE_ATTRIB_SETTABLE)
            attribute.value.type = VAGenericValueTypeInteger
            attribute.value.value.i = Int32(bitPattern: UInt32(fourcc))
            let what = "\(size.0)x\(size.1), RT format \(rtFormat), pixel format \(fourcc)"
            expectStatus(vaCreateSurfaces(dpy, UInt32(rtFormat), UInt32(size.0), UInt32(size.1), &surface, 1, &attribute, 1), VA_STATUS_SUCCESS, what)
            var image = VAImage()
            expectStatus(vaDeriveImage(dpy, surface, &image), VA_STATUS_SUCCESS, "derive: " + what)
            #expect(image.format.fourcc == UInt32(fourcc), "\(what): the surface is not in the pixel format asked for")
            #expect(Int(image.width) == size.0 && Int(image.height) == size.1)
            vaDestroyImage(dpy, image.image_id)
            vaDestroySurfaces(dpy, &surface, 1)
        }
    }

    /// VAAPICreateBuffer: VAQMatrixBufferType of sizeof(VAQMatrixBufferHEVC) on an H.265 decode context
    /// made at the minimum size, without surfaces.
    @Test("test_va_api: VAQMatrixBufferType on an H.265 decode context", arguments: [VAProfileHEVCMain, VAProfileHEVCMain10])
    func qMatrixBuffer(_ profile: VAProfile) throws {
        let owner = try VTKSoftDisplay(driversDirectory: try #require(VTKSoftDriverLocation.directory))
        defer { owner.terminate() }
        let dpy = owner.display
        var config = VAConfigID(VA_INVALID_ID)
        expectStatus(vaCreateConfig(dpy, profile, VAEntrypointVLD, nil, 0, &config), VA_STATUS_SUCCESS, "config")
        defer { vaDestroyConfig(dpy, config) }
        var context = VAContextID(VA_INVALID_ID)
        expectStatus(vaCreateContext(dpy, config, 16, 16, VA_PROGRESSIVE, nil, 0, &context), VA_STATUS_SUCCESS, "context")
        defer { vaDestroyContext(dpy, context) }
        var buffer = VABufferID(VA_INVALID_ID)
        expectStatus(vaCreateBuffer(dpy, context, VAQMatrixBufferType, UInt32(MemoryLayout<VAQMatrixBufferHEVC>.size), 1, nil, &buffer),
                     VA_STATUS_SUCCESS, "VAQMatrixBufferHEVC")
        expectStatus(vaDestroyBuffer(dpy, buffer), VA_STATUS_SUCCESS, "destroy")
        // Still strict about its size.
        expectStatus(vaCreateBuffer(dpy, context, VAQMatrixBufferType, UInt32(MemoryLayout<VAQMatrixBufferHEVC>.size + 4), 1, nil, &buffer),
                     VA_STATUS_ERROR_INVALID_PARAMETER, "a Q matrix of the wrong size")
        // And about types no H.265 decoder takes.
        expectStatus(vaCreateBuffer(dpy, context, VAHuffmanTableBufferType, 64, 1, nil, &buffer),
                     VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE, "a JPEG Huffman table")
    }
}
