import CZlib

/// Writes 8-bit RGB images as PNG (ISO/IEC 15948): IHDR, one IDAT compressed by zlib at level 6, IEND.
/// Rows use the Up filter (9.2, type 2) after the first, which suits video frames.
enum PNGWriter {
    static func png(rgb: [UInt8], width: Int, height: Int) throws(CommandFailure) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += be32(width) + be32(height)
        header += [8, 2, 0, 0, 0]  // bit depth 8, colour type 2 (RGB), deflate, filter 0, no interlace
        chunk("IHDR", header, into: &out)
        let stride = width * 3
        var filtered: [UInt8] = []
        filtered.reserveCapacity((stride + 1) * height)
        for row in 0..<height {
            let line = rgb[(row * stride)..<((row + 1) * stride)]
            if row == 0 {
                filtered.append(0)
                filtered += line
            } else {
                filtered.append(2)
                let above = rgb[((row - 1) * stride)..<(row * stride)]
                filtered += zip(line, above).map { $0 &- $1 }
            }
        }
        chunk("IDAT", try compressed(filtered), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += be32(data.count) + typeBytes + data
        let body = typeBytes + data
        let crc = body.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) }
        out += be32(Int(crc))
    }

    /// A zlib stream (RFC 1950) of `data`, level 6.
    static func compressed(_ data: [UInt8]) throws(CommandFailure) -> [UInt8] {
        var size = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { o in
            data.withUnsafeBufferPointer { i in compress2(o.baseAddress, &size, i.baseAddress, uLong(i.count), 6) }
        }
        // compressBound is always enough (zlib.h); Z_MEM_ERROR means no memory.
        guard status == Z_OK else { throw CommandFailure(.internalError, "vtk: zlib compress2 failed (\(status)) writing a PNG") }
        out.removeSubrange(Int(size)...)
        return out
    }
}
