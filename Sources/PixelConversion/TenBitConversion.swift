import VTKMedia

/// Conversions to, from and between the 10-bit layouts (P010, yuv420p10le), sample by sample: libyuv's
/// 10-bit kernels are not in every distribution's build.
enum TenBitConversion {
    /// Writes `source` into `out` (same size, another format); 8-bit <-> 10-bit shifts by 2 bits.
    static func write(_ source: PixelBuffer, into out: inout PixelBuffer) {
        let planar = toPlanar16(source)
        switch out.format {
        case .yuv420p10:
            for p in 0..<3 { store(planar[p], into: &out.planes[p]) }
        case .p010:
            store(planar[0].map { $0 << 6 }, into: &out.planes[0])
            store(zip(planar[1], planar[2]).flatMap { [$0 << 6, $1 << 6] }, into: &out.planes[1])
        case .i420:
            for p in 0..<3 { storeBytes(planar[p].map { UInt8(min($0 >> 2, 255)) }, into: &out.planes[p]) }
        case .nv12:
            storeBytes(planar[0].map { UInt8(min($0 >> 2, 255)) }, into: &out.planes[0])
            storeBytes(zip(planar[1], planar[2]).flatMap { [UInt8(min($0 >> 2, 255)), UInt8(min($1 >> 2, 255))] }, into: &out.planes[1])
        }
    }

    /// Y, U, V as 10-bit values, rows without padding.
    private static func toPlanar16(_ b: PixelBuffer) -> [[UInt16]] {
        func samples(_ plane: PixelBuffer.Plane, wide: Bool) -> [UInt16] {
            var out: [UInt16] = []
            out.reserveCapacity(plane.rows * plane.rowLength)
            for row in 0..<plane.rows {
                let start = row * plane.bytesPerRow
                if wide {
                    for i in stride(from: start, to: start + plane.rowLength, by: 2) { out.append(UInt16(plane.bytes[i]) | UInt16(plane.bytes[i + 1]) << 8) }
                } else {
                    for i in start..<(start + plane.rowLength) { out.append(UInt16(plane.bytes[i]) << 2) }
                }
            }
            return out
        }
        switch b.format {
        case .yuv420p10: return b.planes.map { samples($0, wide: true) }
        case .i420: return b.planes.map { samples($0, wide: false) }
        case .p010, .nv12:
            let wide = b.format == .p010
            let y = samples(b.planes[0], wide: wide).map { wide ? $0 >> 6 : $0 }
            let uv = samples(b.planes[1], wide: wide).map { wide ? $0 >> 6 : $0 }
            return [y, stride(from: 0, to: uv.count, by: 2).map { uv[$0] }, stride(from: 1, to: uv.count, by: 2).map { uv[$0] }]
        }
    }

    private static func store(_ values: [UInt16], into plane: inout PixelBuffer.Plane) {
        storeBytes(values.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, into: &plane)
    }

    private static func storeBytes(_ bytes: [UInt8], into plane: inout PixelBuffer.Plane) {
        for row in 0..<plane.rows {
            let from = row * plane.rowLength
            plane.bytes.replaceSubrange((row * plane.bytesPerRow)..<(row * plane.bytesPerRow + plane.rowLength),
                                        with: bytes[from..<(from + plane.rowLength)])
        }
    }
}
