import COpenH264
import Foundation

/// openh264 called directly, set up the way vtksoft sets it up for a CQP High CABAC stream
/// (Sources/VTKSoft/OpenH264Encoder.swift), as the floor vtk's encode through VA is measured against.
/// The approach is Tools/VTKSoftBench's; only the settings that differ from openh264's defaults are set.
enum OpenH264Reference {
    /// Encodes `frames` I420 pictures from `pictures` at QP `qp`; returns the coded bytes.
    static func encode(_ pictures: Data, width: Int, height: Int, frames: Int, qp: Int32, framesPerSecond: Float) -> Int {
        var encoder: UnsafeMutablePointer<ISVCEncoder?>?
        guard WelsCreateSVCEncoder(&encoder) == 0, let encoder, let api = encoder.pointee?.pointee else { fatalError("WelsCreateSVCEncoder") }
        defer { WelsDestroySVCEncoder(encoder) }
        var p = SEncParamExt()
        _ = api.GetDefaultParams(encoder, &p)
        p.iUsageType = CAMERA_VIDEO_REAL_TIME
        (p.iPicWidth, p.iPicHeight, p.fMaxFrameRate) = (Int32(width), Int32(height), framesPerSecond)
        (p.iRCMode, p.bEnableAdaptiveQuant, p.iMinQp, p.iMaxQp) = (RC_OFF_MODE, false, qp, qp)
        (p.iTemporalLayerNum, p.iSpatialLayerNum, p.uiIntraPeriod, p.iNumRefFrame) = (1, 1, 0, 1)
        (p.bEnableSceneChangeDetect, p.bEnableFrameSkip, p.bEnableDenoise, p.bEnableBackgroundDetection) = (false, false, false, false)
        (p.iEntropyCodingModeFlag, p.iMultipleThreadIdc, p.eSpsPpsIdStrategy) = (1, 1, CONSTANT_ID)
        p.sSpatialLayers.0.iVideoWidth = Int32(width)
        p.sSpatialLayers.0.iVideoHeight = Int32(height)
        p.sSpatialLayers.0.fFrameRate = framesPerSecond
        p.sSpatialLayers.0.uiProfileIdc = PRO_HIGH
        p.sSpatialLayers.0.iDLayerQp = qp
        p.sSpatialLayers.0.sSliceArgument.uiSliceMode = SM_SINGLE_SLICE
        guard api.InitializeExt(encoder, &p) == 0 else { fatalError("InitializeExt") }
        defer { _ = api.Uninitialize(encoder) }
        var info = SFrameBSInfo()
        var total = 0
        let frameSize = width * height * 3 / 2
        pictures.withUnsafeBytes { raw in
            let base = UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress!)
            for index in 0..<frames {
                let y = base + index * frameSize
                var source = SSourcePicture()
                source.iColorFormat = Int32(videoFormatI420.rawValue)
                (source.iPicWidth, source.iPicHeight) = (Int32(width), Int32(height))
                source.iStride = (Int32(width), Int32(width / 2), Int32(width / 2), 0)
                source.pData = (y, y + width * height, y + width * height * 5 / 4, nil)
                source.uiTimeStamp = Int64(Double(index) * 1000 / Double(framesPerSecond))
                guard api.EncodeFrame(encoder, &source, &info) == 0 else { fatalError("EncodeFrame") }
                total += Int(info.iFrameSizeInBytes)
            }
        }
        return total
    }
}
