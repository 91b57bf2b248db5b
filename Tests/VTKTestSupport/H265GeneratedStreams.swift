/// H.265 streams made at run time with libx265, for syntax the conformance streams lack: B-pyramid with
/// weighted bi-prediction, AMP, transform skip and constrained intra; temporal sub-layers, VUI with HRD,
/// AUDs, repeated headers and HDR and picture-hash SEI; Main 10 with slices and CU lossless.
extension GeneratedStream {
    public static let h265: [GeneratedStream] = [
        GeneratedStream(name: "x265-weightb-amp-tskip-352x288", width: 352, height: 288, frames: 24,
                        encoderOptions: ["-c:v", "libx265", "-x265-params",
                                         "log-level=error:bframes=5:b-pyramid=1:ref=4:weightp=1:weightb=1:amp=1:rect=1:tskip=1:keyint=16:open-gop=1:signhide=0:constrained-intra=1"],
                        muxer: "hevc"),
        GeneratedStream(name: "x265-sublayers-vui-hrd-sei-208x120", width: 208, height: 120, frames: 20,
                        encoderOptions: ["-c:v", "libx265", "-x265-params",
                                         "log-level=error:hrd=1:vbv-maxrate=600:vbv-bufsize=800:aud=1:repeat-headers=1:colorprim=bt709:transfer=bt709:"
                                             + "colormatrix=bt709:sar=14:overscan=show:videoformat=pal:chromaloc=1:range=full:max-cll=1000,400:"
                                             + "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):hash=1:temporal-layers=1:keyint=10"],
                        muxer: "hevc"),
        GeneratedStream(name: "x265-main10-slices-culossless-320x180", width: 320, height: 180, frames: 12,
                        encoderOptions: ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error:slices=3:cu-lossless=1:bframes=2:keyint=6"],
                        muxer: "hevc"),
    ]
}
