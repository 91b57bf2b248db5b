import CLibVA

/// An NV12 picture in driver memory: a luma plane, then interleaved CbCr at half height.
final class Surface {
    let width: Int
    let height: Int
    /// Bytes per row of both planes.
    let pitch: Int
    /// Rows allocated for luma: the height rounded up to whole macroblocks, so a decoder can write
    /// the full coded picture of a stream whose visible height is cropped.
    let allocatedHeight: Int
    let memory: PlaneMemory

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pitch = (width + 63) & ~63
        allocatedHeight = (height + 15) & ~15
        memory = PlaneMemory(size: pitch * allocatedHeight * 3 / 2)
        // Black, not green, for a surface nobody wrote yet.
        (memory.base + chromaOffset).initializeMemory(as: UInt8.self, repeating: 128, count: pitch * allocatedHeight / 2)
    }

    var lumaOffset: Int { 0 }
    var chromaOffset: Int { pitch * allocatedHeight }
    var luma: UnsafeMutablePointer<UInt8> { memory.base.assumingMemoryBound(to: UInt8.self) }
    var chroma: UnsafeMutablePointer<UInt8> { (memory.base + chromaOffset).assumingMemoryBound(to: UInt8.self) }
}
