import NALStream

/// The SEI messages vtk reads from H.265 prefix and suffix SEI NAL units (7.3.5, D.2).
public enum H265SEIMessage: Hashable, Sendable {
    /// recovery_point() (D.2.8).
    case recoveryPoint(recoveryPocCnt: Int, exactMatchFlag: Bool, brokenLinkFlag: Bool)
    /// decoded_picture_hash() (D.2.20): hash_type 0 MD5 (16 bytes a plane), 1 CRC, 2 checksum.
    case decodedPictureHash(hashType: Int, planes: [[UInt8]])
    /// mastering_display_colour_volume() (D.2.28): G, B, R primaries and white point in 0.00002 units,
    /// luminance in 0.0001 cd/m2.
    case masteringDisplay(primaries: [(x: Int, y: Int)], whitePoint: (x: Int, y: Int), maxLuminance: Int, minLuminance: Int)
    /// content_light_level_info() (D.2.35).
    case contentLightLevel(maxContentLightLevel: Int, maxPicAverageLightLevel: Int)
    /// Any other payload, by type and size.
    case other(payloadType: Int, size: Int)

    public static func == (a: Self, b: Self) -> Bool { "\(a)" == "\(b)" }
    public func hash(into hasher: inout Hasher) { hasher.combine("\(self)") }

    /// The messages of one SEI NAL unit (type 39 or 40). `chromaFormatIdc` decides the planes of a picture hash.
    public static func messages(in unit: NALUnit, chromaFormatIdc: Int = 1) throws(BitstreamError) -> [H265SEIMessage] {
        try unit.checkH265Header()
        let rbsp = unit.h265RBSP
        var messages: [H265SEIMessage] = []
        var position = 0
        func byte() throws(BitstreamError) -> Int {
            guard position < rbsp.count else { throw .malformedNALUnit(byteOffset: unit.offset + 2 + position, reason: "SEI message cut short") }
            defer { position += 1 }
            return Int(rbsp[position])
        }
        // sei_rbsp(): messages until the rbsp_trailing_bits byte 0x80.
        while position < rbsp.count && !(position == rbsp.count - 1 && rbsp[position] == 0x80) {
            var type = 0, size = 0, b = 0
            repeat { b = try byte(); type += b } while b == 0xFF
            repeat { b = try byte(); size += b } while b == 0xFF
            guard size <= rbsp.count - position else {
                throw .malformedNALUnit(byteOffset: unit.offset + 2 + position, reason: "SEI payload of \(size) bytes runs past the NAL unit")
            }
            let payload = Array(rbsp[position..<(position + size)])
            var r = BitReader(payload, reportingBase: (position) * 8)
            position += size
            do {
                messages.append(try message(type: type, payload: &r, size: size, chromaFormatIdc: chromaFormatIdc))
            } catch {
                throw error.locatedInNALUnit(at: unit.offset)
            }
        }
        return messages
    }

    private static func message(type: Int, payload r: inout BitReader, size: Int, chromaFormatIdc: Int) throws(BitstreamError) -> H265SEIMessage {
        switch type {
        case 6:
            let count = Int(try r.se())
            return .recoveryPoint(recoveryPocCnt: count, exactMatchFlag: try r.flag(), brokenLinkFlag: try r.flag())
        case 132:
            let hashType = Int(try r.u(8))
            var planes: [[UInt8]] = []
            for _ in 0..<(chromaFormatIdc == 0 ? 1 : 3) {
                let bytes = hashType == 0 ? 16 : hashType == 1 ? 2 : 4
                var plane: [UInt8] = []
                for _ in 0..<bytes { plane.append(UInt8(try r.u(8))) }
                planes.append(plane)
            }
            return .decodedPictureHash(hashType: hashType, planes: planes)
        case 137:
            var primaries: [(Int, Int)] = []
            for _ in 0..<3 { primaries.append((Int(try r.u(16)), Int(try r.u(16)))) }
            let white = (Int(try r.u(16)), Int(try r.u(16)))
            return .masteringDisplay(primaries: primaries, whitePoint: white, maxLuminance: Int(try r.u(32)), minLuminance: Int(try r.u(32)))
        case 144:
            return .contentLightLevel(maxContentLightLevel: Int(try r.u(16)), maxPicAverageLightLevel: Int(try r.u(16)))
        default:
            return .other(payloadType: type, size: size)
        }
    }
}
