import CLibVA
import CLibYUV

/// Plane layout of an image format at a size, and pixel copies between NV12 surfaces and images.
struct ImageLayout {
    let fourcc: UInt32
    let width: Int
    let height: Int
    var pitches: [Int] = []
    var offsets: [Int] = []
    var dataSize = 0

    static let nv12 = UInt32(VA_FOURCC_NV12)

    /// The VAImageFormat of a 4:2:0 8-bit layout (NV12, I420, YV12).
    static func vaFormat(_ fourcc: UInt32) -> VAImageFormat {
        var format = VAImageFormat()
        format.fourcc = fourcc
        format.byte_order = UInt32(VA_LSB_FIRST)
        format.bits_per_pixel = 12
        return format
    }
    static let i420 = UInt32(VA_FOURCC_I420)
    static let yv12 = UInt32(VA_FOURCC_YV12)

    init(fourcc: UInt32, width: Int, height: Int) throws(VAError) {
        self.fourcc = fourcc
        self.width = width
        self.height = height
        let lumaPitch = (width + 15) & ~15
        let evenHeight = (height + 1) & ~1
        switch fourcc {
        case ImageLayout.nv12:
            pitches = [lumaPitch, lumaPitch]
            offsets = [0, lumaPitch * evenHeight]
            dataSize = lumaPitch * evenHeight * 3 / 2
        case ImageLayout.i420, ImageLayout.yv12:
            let chromaPitch = lumaPitch / 2
            let lumaSize = lumaPitch * evenHeight
            let chromaSize = chromaPitch * evenHeight / 2
            pitches = [lumaPitch, chromaPitch, chromaPitch]
            offsets = [0, lumaSize, lumaSize + chromaSize]
            dataSize = lumaSize + 2 * chromaSize
        default:
            throw .invalidImageFormat
        }
    }

    /// The layout of a surface's own memory, for vaDeriveImage.
    init(surface: Surface) {
        fourcc = ImageLayout.nv12
        width = surface.width
        height = surface.height
        pitches = [surface.pitch, surface.pitch]
        offsets = [surface.lumaOffset, surface.chromaOffset]
        dataSize = surface.memory.size
    }

    func vaImage(id: VAImageID, buffer: VABufferID) -> VAImage {
        var image = VAImage()
        image.image_id = id
        image.format = ImageLayout.vaFormat(fourcc)
        image.buf = buffer
        image.width = UInt16(width)
        image.height = UInt16(height)
        image.data_size = UInt32(dataSize)
        image.num_planes = UInt32(pitches.count)
        withUnsafeMutableBytes(of: &image.pitches) { raw in
            for (i, p) in pitches.enumerated() { raw.storeBytes(of: UInt32(p), toByteOffset: i * 4, as: UInt32.self) }
        }
        withUnsafeMutableBytes(of: &image.offsets) { raw in
            for (i, o) in offsets.enumerated() { raw.storeBytes(of: UInt32(o), toByteOffset: i * 4, as: UInt32.self) }
        }
        return image
    }
}

/// A rectangle of pixels in one of the image formats, in memory.
struct PlanarPixels {
    let fourcc: UInt32
    var planes: [UnsafeMutablePointer<UInt8>]
    var pitches: [Int]

    /// Planes of `image` starting at pixel (x, y); x and y must be even (4:2:0 chroma).
    init(base: UnsafeMutableRawPointer, image: VAImage, x: Int, y: Int) {
        fourcc = image.format.fourcc
        let offsets = withUnsafeBytes(of: image.offsets) { Array($0.bindMemory(to: UInt32.self)) }
        let allPitches = withUnsafeBytes(of: image.pitches) { Array($0.bindMemory(to: UInt32.self)) }
        let count = Int(image.num_planes)
        pitches = (0..<count).map { Int(allPitches[$0]) }
        planes = (0..<count).map { plane in
            let pitch = Int(allPitches[plane])
            let start: Int
            if plane == 0 {
                start = y * pitch + x
            } else if image.format.fourcc == ImageLayout.nv12 {
                start = (y / 2) * pitch + x
            } else {
                start = (y / 2) * pitch + x / 2
            }
            return (base + Int(offsets[plane]) + start).assumingMemoryBound(to: UInt8.self)
        }
    }

    init(surface: Surface, x: Int, y: Int) {
        fourcc = ImageLayout.nv12
        pitches = [surface.pitch, surface.pitch]
        planes = [surface.luma + y * surface.pitch + x, surface.chroma + (y / 2) * surface.pitch + x]
    }

    /// U and V planes in that order whatever the format stores (YV12 stores V first).
    private var uv: (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int) {
        fourcc == ImageLayout.yv12 ? (planes[2], pitches[2], planes[1], pitches[1]) : (planes[1], pitches[1], planes[2], pitches[2])
    }

    /// Copies (converting) `width` x `height` pixels from `source` to `self`. One side is always NV12.
    func copy(from source: PlanarPixels, width: Int, height: Int) {
        let w = Int32(width), h = Int32(height)
        switch (source.fourcc, fourcc) {
        case (ImageLayout.nv12, ImageLayout.nv12):
            CopyPlane(source.planes[0], Int32(source.pitches[0]), planes[0], Int32(pitches[0]), w, h)
            CopyPlane(source.planes[1], Int32(source.pitches[1]), planes[1], Int32(pitches[1]), (w + 1) & ~1, (h + 1) / 2)
        case (ImageLayout.nv12, _):
            let (u, uPitch, v, vPitch) = uv
            NV12ToI420(source.planes[0], Int32(source.pitches[0]), source.planes[1], Int32(source.pitches[1]),
                       planes[0], Int32(pitches[0]), u, Int32(uPitch), v, Int32(vPitch), w, h)
        case (_, ImageLayout.nv12):
            let (u, uPitch, v, vPitch) = source.uv
            I420ToNV12(source.planes[0], Int32(source.pitches[0]), u, Int32(uPitch), v, Int32(vPitch),
                       planes[0], Int32(pitches[0]), planes[1], Int32(pitches[1]), w, h)
        default:
            break
        }
    }
}
