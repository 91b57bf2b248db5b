/// GStreamer's default I420 layout (gst_video_info_set_format): every plane's stride is rounded up to 4
/// bytes and the chroma planes start after the rows rounded up to even; filesink writes it all, padding included.
enum GStreamerI420 {
    static func roundUp(_ value: Int, _ multiple: Int) -> Int { (value + multiple - 1) / multiple * multiple }

    /// Bytes of one padded frame, and where each plane starts, with its stride.
    static func layout(width: Int, height: Int) -> (frameSize: Int, planes: [(offset: Int, stride: Int, width: Int, rows: Int)]) {
        let lumaStride = roundUp(width, 4), chromaStride = roundUp(roundUp(width, 2) / 2, 4)
        let chromaRows = roundUp(height, 2) / 2
        let u = lumaStride * roundUp(height, 2), v = u + chromaStride * chromaRows
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        return (v + chromaStride * chromaRows, [(0, lumaStride, width, height), (u, chromaStride, chromaWidth, chromaHeight),
                                                (v, chromaStride, chromaWidth, chromaHeight)])
    }

    /// The frames of `bytes` (padded I420 of width x height) without their padding; a partial last frame is dropped.
    static func unpadded(_ bytes: [UInt8], width: Int, height: Int) -> [UInt8] {
        let (frameSize, planes) = layout(width: width, height: height)
        guard frameSize > 0 else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let base = bytes.startIndex
        for frame in stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize) {
            for plane in planes {
                for row in 0..<plane.rows {
                    let start = base + frame + plane.offset + row * plane.stride
                    out.append(contentsOf: bytes[start..<(start + plane.width)])
                }
            }
        }
        return out
    }

    /// The size in the last I420 caps that `gst-launch-1.0 -v` printed (the sink's, after negotiation).
    static func lastSize(inVerboseOutput text: String) -> (width: Int, height: Int)? {
        var found: (Int, Int)?
        for line in text.split(separator: "\n") where line.contains("video/x-raw") && line.contains("format=(string)I420") {
            func field(_ name: String) -> Int? {
                guard let range = line.firstRange(of: "\(name)=(int)") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
            if let width = field("width"), let height = field("height") { found = (width, height) }
        }
        return found.map { (width: $0.0, height: $0.1) }
    }
}
