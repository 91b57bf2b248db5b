import CLibVA

/// nvidia-vaapi-driver v0.0.17 (NVDEC), decode only. Source: `src/vabackend.c` (nvQueryConfigProfiles,
/// nvGetConfigAttributes: RTFormat only, others left untouched; nvDeriveImage returns OPERATION_FAILED, nvPutSurface UNIMPLEMENTED) and
/// published `vainfo` dumps, as gathered in ../shared/personas/README.md.
extension Persona {
    static let nvidia: Persona = {
        let yuv420 = [Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420)]
        return Persona(
            name: "nvidia",
            vendor: "VA-API NVDEC driver [direct backend] [vtksoft persona nvidia]",
            entries: [
                Entry(profiles: [VAProfileH264Main, VAProfileH264High, VAProfileH264ConstrainedBaseline],
                      entrypoint: VAEntrypointVLD, attributes: yuv420),
                Entry(profiles: [VAProfileHEVCMain], entrypoint: VAEntrypointVLD, attributes: yuv420),
                Entry(profiles: [VAProfileHEVCMain10], entrypoint: VAEntrypointVLD,
                      attributes: [Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10)]),
                Entry(profiles: [VAProfileHEVCMain12], entrypoint: VAEntrypointVLD,
                      attributes: [Attribute(VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_12)]),
            ],
            // Surface formats NV12, P010, P012, P016, 444P, Q416; of these vtksoft maps NV12 and P010.
            imageFormats: [ImageLayout.nv12, ImageLayout.p010],
            maxWidth: 4096, maxHeight: 4096,
            packedHeaders: .driverUnlessClient, imageAccess: .copyOnly, timing: .worker, encoder: nil,
            // nvPutSurface: "return VA_STATUS_ERROR_UNIMPLEMENTED" (vabackend.c).
            presentation: .unavailable)
    }()
}
