import CLibAVCodec
import COpenH264
import Foundation

/// The software codecs vtksoft wraps, used directly, as whole processes (`vtk-bench --libavcodec-decode`,
/// `vtk-bench --openh264-encode`), so that they are timed the same way as vtk and ffmpeg: start-up included.
enum Harness {
    /// libavcodec's H.264 decoder, one thread, no output: the floor of vtk's decode through vtksoft.
    /// The stream is split into packets by libavcodec's own parser.
    static func libavcodecDecode(_ path: String) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path) else { return 3 }
        av_log_set_level(AV_LOG_ERROR)
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264), var context = Optional(avcodec_alloc_context3(codec)),
              let ctx = context else { return 4 }
        ctx.pointee.thread_count = 1
        ctx.pointee.thread_type = 0
        guard avcodec_open2(ctx, codec, nil) >= 0, let parser = av_parser_init(Int32(AV_CODEC_ID_H264.rawValue)) else { return 4 }
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        var frames = 0
        func receive() {
            while avcodec_receive_frame(ctx, frame) >= 0 {
                frames += 1
                av_frame_unref(frame)
            }
        }
        let bytes = [UInt8](data)
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while true {
                var out: UnsafeMutablePointer<UInt8>?
                var size: Int32 = 0
                let remaining = buffer.count - offset
                let used = av_parser_parse2(parser, ctx, &out, &size, remaining > 0 ? buffer.baseAddress! + offset : nil, Int32(remaining),
                                            Int64.min, Int64.min, 0)
                offset += Int(used)
                if size > 0, let out {
                    packet!.pointee.data = out
                    packet!.pointee.size = size
                    _ = avcodec_send_packet(ctx, packet)
                    receive()
                }
                if remaining == 0 { break }
            }
        }
        _ = avcodec_send_packet(ctx, nil)
        receive()
        av_parser_close(parser)
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&context)
        print("frames=\(frames)")
        return frames > 0 ? 0 : 3
    }

    /// openh264 with the settings vtksoft gives it (Sources/VTKSoft/OpenH264Encoder.swift): High, CABAC,
    /// one reference, single slice; CQP (`qp`) or CBR (`bitRate`); an IDR every `keyint` frames. I420 input
    /// (openh264's own layout: vtksoft converts the NV12 surface to it, which is part of vtk's overhead).
    static func openh264Encode(_ path: String, width: Int, height: Int, frames: Int, qp: Int32?, bitRate: Int32?, keyint: UInt32,
                               output: String) -> Int32 {
        guard let pictures = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return 3 }
        let framesPerSecond: Float = 30
        var encoder: UnsafeMutablePointer<ISVCEncoder?>?
        guard WelsCreateSVCEncoder(&encoder) == 0, let encoder, let api = encoder.pointee?.pointee else { return 4 }
        defer { WelsDestroySVCEncoder(encoder) }
        var p = SEncParamExt()
        _ = api.GetDefaultParams(encoder, &p)
        p.iUsageType = CAMERA_VIDEO_REAL_TIME
        (p.iPicWidth, p.iPicHeight, p.fMaxFrameRate) = (Int32(width), Int32(height), framesPerSecond)
        (p.iTemporalLayerNum, p.iSpatialLayerNum, p.uiIntraPeriod, p.iNumRefFrame) = (1, 1, keyint, 1)
        (p.bEnableSceneChangeDetect, p.bEnableFrameSkip, p.bEnableDenoise, p.bEnableBackgroundDetection) = (false, false, false, false)
        (p.iEntropyCodingModeFlag, p.iMultipleThreadIdc, p.eSpsPpsIdStrategy) = (1, 1, CONSTANT_ID)
        (p.bPrefixNalAddingCtrl, p.bEnableSSEI, p.bSimulcastAVC, p.bEnableLongTermReference) = (false, false, false, false)
        p.bEnableFrameCroppingFlag = true
        p.sSpatialLayers.0.iVideoWidth = Int32(width)
        p.sSpatialLayers.0.iVideoHeight = Int32(height)
        p.sSpatialLayers.0.fFrameRate = framesPerSecond
        p.sSpatialLayers.0.uiProfileIdc = PRO_HIGH
        p.sSpatialLayers.0.sSliceArgument.uiSliceMode = SM_SINGLE_SLICE
        if let qp {
            (p.iRCMode, p.bEnableAdaptiveQuant, p.iMinQp, p.iMaxQp) = (RC_OFF_MODE, false, qp, qp)
            p.sSpatialLayers.0.iDLayerQp = qp
        } else if let bitRate {
            (p.iRCMode, p.iTargetBitrate, p.iMaxBitrate) = (RC_BITRATE_MODE, bitRate, bitRate)
            p.sSpatialLayers.0.iSpatialBitrate = bitRate
            p.sSpatialLayers.0.iMaxSpatialBitrate = bitRate
        }
        guard api.InitializeExt(encoder, &p) == 0 else { return 4 }
        defer { _ = api.Uninitialize(encoder) }
        guard let out = fopen(output, "wb") else { return 5 }
        defer { fclose(out) }
        var info = SFrameBSInfo()
        let frameSize = width * height * 3 / 2
        let count = min(frames, pictures.count / frameSize)
        var failed = false
        pictures.withUnsafeBytes { raw in
            let base = UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress!)
            for index in 0..<count {
                let y = base + index * frameSize
                var source = SSourcePicture()
                source.iColorFormat = Int32(videoFormatI420.rawValue)
                (source.iPicWidth, source.iPicHeight) = (Int32(width), Int32(height))
                source.iStride = (Int32(width), Int32(width / 2), Int32(width / 2), 0)
                source.pData = (y, y + width * height, y + width * height * 5 / 4, nil)
                source.uiTimeStamp = Int64(Double(index) * 1000 / Double(framesPerSecond))
                guard api.EncodeFrame(encoder, &source, &info) == 0 else { failed = true; return }
                // The layers' NAL units are contiguous from the first layer's buffer.
                var bytes = 0
                withUnsafeBytes(of: &info.sLayerInfo) { layers in
                    let list = layers.bindMemory(to: SLayerBSInfo.self)
                    for layer in 0..<Int(info.iLayerNum) {
                        let l = list[layer]
                        for nal in 0..<Int(l.iNalCount) { bytes += Int(l.pNalLengthInByte[nal]) }
                    }
                    if info.iLayerNum > 0, let first = list[0].pBsBuf { fwrite(first, 1, bytes, out) }
                }
            }
        }
        return failed ? 6 : 0
    }
}
