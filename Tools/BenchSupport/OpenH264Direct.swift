import COpenH264
#if canImport(Glibc)
import Glibc
#endif

/// openh264 called directly, with the settings vtksoft gives it (Sources/VTKSoft/OpenH264Encoder.swift):
/// High, CABAC, one reference, single slice, no frame skipping; CQP (`qp`) or CBR (`bitRate`); an IDR
/// every `keyint` frames (0: only the first). The floor that encoding through VA is measured against.
public enum OpenH264Direct {
    public enum Failure: Error { case create, initialize, encode(frame: Int) }

    /// Encodes the I420 frames packed in `pictures` (openh264's own layout: vtksoft converts its NV12
    /// surfaces to it, which is part of vtk's overhead). Hands each coded picture's bytes to `output`;
    /// returns the total coded size.
    public static func encode(_ pictures: UnsafeRawBufferPointer, width: Int, height: Int, frames: Int, qp: Int32?, bitRate: Int32?,
                              keyint: UInt32, framesPerSecond: Float = 30,
                              output: (UnsafeRawBufferPointer) -> Void = { _ in }) throws(Failure) -> Int {
        var encoder: UnsafeMutablePointer<ISVCEncoder?>?
        guard WelsCreateSVCEncoder(&encoder) == 0, let encoder, let api = encoder.pointee?.pointee else { throw .create }
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
        guard api.InitializeExt(encoder, &p) == 0 else { throw .initialize }
        defer { _ = api.Uninitialize(encoder) }
        var info = SFrameBSInfo()
        let frameSize = width * height * 3 / 2
        let count = min(frames, pictures.count / frameSize)
        guard let base = pictures.baseAddress else { return 0 }
        var total = 0
        for index in 0..<count {
            let y = UnsafeMutablePointer(mutating: (base + index * frameSize).assumingMemoryBound(to: UInt8.self))
            var source = SSourcePicture()
            source.iColorFormat = Int32(videoFormatI420.rawValue)
            (source.iPicWidth, source.iPicHeight) = (Int32(width), Int32(height))
            source.iStride = (Int32(width), Int32(width / 2), Int32(width / 2), 0)
            source.pData = (y, y + width * height, y + width * height * 5 / 4, nil)
            source.uiTimeStamp = Int64(Double(index) * 1000 / Double(framesPerSecond))
            guard api.EncodeFrame(encoder, &source, &info) == 0 else { throw .encode(frame: index) }
            // The layers' NAL units are contiguous from the first layer's buffer.
            var bytes = 0
            withUnsafeBytes(of: &info.sLayerInfo) { layers in
                let list = layers.bindMemory(to: SLayerBSInfo.self)
                for layer in 0..<Int(info.iLayerNum) {
                    let l = list[layer]
                    for nal in 0..<Int(l.iNalCount) { bytes += Int(l.pNalLengthInByte[nal]) }
                }
                if info.iLayerNum > 0, let first = list[0].pBsBuf { output(UnsafeRawBufferPointer(start: first, count: bytes)) }
            }
            total += bytes
        }
        return total
    }
}
