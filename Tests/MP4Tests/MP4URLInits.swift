import Foundation
import H264Bitstream
import MP4

// The tests name files by URL; MP4 itself takes paths (it does not link Foundation, nor does vtk).
extension MP4Reader {
    convenience init(url: URL) throws(MP4Error) { try self.init(path: url.path) }
}

extension MP4Writer {
    convenience init(url: URL, format: FormatDescription, timescale: Int32, faststart: Bool = false) throws(MP4Error) {
        try self.init(path: url.path, format: format, timescale: timescale, faststart: faststart)
    }
}
