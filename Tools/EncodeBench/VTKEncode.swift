import CompressionSession
import H264Bitstream
import Foundation
import VTKMedia

/// vtk's own encode: CompressionSession through vtksoft, NV12 frames from a mapped file put into the
/// session's pool buffers; the samples as an Annex B stream.
enum VTKEncode {
    static func encode(_ nv12: Data, width: Int, height: Int, frames: Int, properties: CompressionProperties) throws -> [UInt8] {
        let session = try CompressionSession(width: width, height: height, properties: properties, device: .software)
        try session.prepareToEncodeFrames()
        let frameSize = PixelBuffer.frameSize(format: .nv12, width: width, height: height)
        let rate = Int32(properties.expectedFrameRate ?? 30)
        var samples: [SampleBuffer] = []
        samples.reserveCapacity(frames)
        for index in 0..<frames {
            var buffer = session.pixelBufferPool.makePixelBuffer()
            var offset = index * frameSize
            for plane in buffer.planes.indices {
                let count = buffer.planes[plane].bytes.count
                buffer.planes[plane].bytes.withUnsafeMutableBytes { dst in
                    nv12.withUnsafeBytes { src in dst.baseAddress!.copyMemory(from: src.baseAddress! + offset, byteCount: count) }
                }
                offset += count
            }
            samples += try session.encodeFrame(buffer, presentationTime: MediaTime(value: Int64(index), timescale: rate))
        }
        samples += try session.completeFrames()
        return try samples.annexBStream()
    }
}
