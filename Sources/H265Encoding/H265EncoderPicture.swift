/// A 4:2:0 picture as the H.265 engine takes and returns it: coded size (pic_width_in_luma_samples x
/// pic_height_in_luma_samples), planes tightly packed (stride == width), one UInt16 per sample at any bit depth.
public struct H265EncoderPicture: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// 8 (Main) or 10 (Main 10).
    public let bitDepth: Int
    public var luma: [UInt16]
    public var cb: [UInt16]
    public var cr: [UInt16]
    /// The motion the engine coded the picture with (temporal motion vector prediction takes candidates from
    /// it); nil for pictures the engine did not code, whose blocks then count as intra.
    public var motion: H265MotionField?

    public var chromaWidth: Int { width / 2 }
    public var chromaHeight: Int { height / 2 }

    /// A picture of zero samples.
    public init(width: Int, height: Int, bitDepth: Int = 8) {
        self.init(width: width, height: height, bitDepth: bitDepth,
                  luma: [UInt16](repeating: 0, count: width * height),
                  cb: [UInt16](repeating: 0, count: (width / 2) * (height / 2)),
                  cr: [UInt16](repeating: 0, count: (width / 2) * (height / 2)))
    }

    /// A picture of these planes (the encoder checks their sizes).
    public init(width: Int, height: Int, bitDepth: Int, luma: [UInt16], cb: [UInt16], cr: [UInt16]) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.luma = luma
        self.cb = cb
        self.cr = cr
    }

    /// An 8-bit picture from 8-bit planes.
    public init(width: Int, height: Int, luma8: [UInt8], cb8: [UInt8], cr8: [UInt8]) {
        self.init(width: width, height: height, bitDepth: 8, luma: Self.widened(luma8), cb: Self.widened(cb8), cr: Self.widened(cr8))
    }

    /// 8-bit samples as UInt16, by a loop that vectorises (`map` through a closure does not).
    private static func widened(_ bytes: [UInt8]) -> [UInt16] {
        [UInt16](unsafeUninitializedCapacity: bytes.count) { samples, initialised in
            bytes.withUnsafeBufferPointer { source in
                for i in 0..<source.count { samples[i] = UInt16(source[i]) }
            }
            initialised = bytes.count
        }
    }

    /// Whether the planes hold width x height and (width/2) x (height/2) samples.
    public var hasConsistentPlanes: Bool {
        luma.count == width * height && cb.count == chromaWidth * chromaHeight && cr.count == chromaWidth * chromaHeight
    }

    /// The planes as I420 bytes: one byte per sample at 8 bits, else two, little-endian (yuv420p10le).
    public func i420Bytes() -> [UInt8] {
        var out = [UInt8]()
        let wide = bitDepth > 8
        out.reserveCapacity((luma.count + cb.count + cr.count) * (wide ? 2 : 1))
        for plane in [luma, cb, cr] {
            for s in plane {
                if wide { out.append(UInt8(truncatingIfNeeded: s)); out.append(UInt8(truncatingIfNeeded: s >> 8)) } else { out.append(UInt8(truncatingIfNeeded: s)) }
            }
        }
        return out
    }
}
