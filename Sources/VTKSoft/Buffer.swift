import CLibVA

/// A VA buffer: parameters, slice data, a coded (bitstream) buffer, or the pixels of an image.
final class Buffer {
    let type: VABufferType
    let elementSize: Int
    let allocatedElements: Int
    var elementCount: Int
    let memory: PlaneMemory
    /// Where this buffer's bytes start in `memory` (an image derived from a surface aliases the surface).
    let offset: Int
    /// The context the buffer was created for; images' buffers have none.
    let context: VAContextID?

    /// Coded buffers: bytes of bitstream written by the last vaEndPicture.
    var codedLength = 0
    var codedStatus: UInt32 = 0
    /// Coded buffers: pictures the worker has yet to write here (vaMapBuffer waits).
    var pendingPictures = 0

    /// `zeroed` false: the caller copies the client's data over all of it at once (vaCreateBuffer with data).
    init(type: VABufferType, elementSize: Int, elementCount: Int, context: VAContextID?, zeroed: Bool = true) {
        self.type = type
        self.elementSize = elementSize
        allocatedElements = elementCount
        self.elementCount = elementCount
        self.context = context
        offset = 0
        surface = nil
        let header = type == VAEncCodedBufferType ? Buffer.codedHeaderSize : 0
        // A coded buffer is large (a picture's worst case) and lives as long as the client's pool: mapped, its
        // pages are zero until the encoder writes them, instead of all being filled at creation.
        // Image buffers are read and written by libyuv; the others by Swift code, where C structs load unaligned.
        memory = PlaneMemory(size: header + elementSize * elementCount, mapped: header > 0, zeroed: zeroed || header > 0,
                             simdAligned: type == VAImageBufferType)
    }

    /// The surface an image buffer was derived from: its bytes are the surface's memory of the moment
    /// (a surface moves to new memory when it must be written while libavcodec refers to the old).
    private let surface: Surface?

    /// A buffer over a surface's memory (vaDeriveImage).
    init(aliasing surface: Surface) {
        self.surface = surface
        memory = surface.memory
        let size = surface.memory.size
        type = VAImageBufferType
        elementSize = size
        allocatedElements = 1
        elementCount = 1
        offset = 0
        context = nil
    }

    var size: Int { elementSize * elementCount }
    var bytes: UnsafeMutableRawPointer { (surface?.memory ?? memory).base + offset }

    /// A copy of the contents, taken at vaRenderPicture: the client may reuse or destroy the buffer
    /// before the picture is finished.
    var contents: [UInt8] {
        Array(UnsafeRawBufferPointer(start: bytes, count: size))
    }

    // MARK: Coded buffers

    /// The VACodedBufferSegment header sits in front of the payload, padded to keep the payload aligned.
    static let codedHeaderSize = (MemoryLayout<VACodedBufferSegment>.size + 63) & ~63
    var codedCapacity: Int { elementSize * allocatedElements }
    var codedPayload: UnsafeMutablePointer<UInt8> {
        (memory.base + Buffer.codedHeaderSize).assumingMemoryBound(to: UInt8.self)
    }

    /// What vaMapBuffer hands out for a coded buffer: a one-segment list over the payload.
    func mapCodedSegment() -> UnsafeMutableRawPointer {
        let segment = memory.base.bindMemory(to: VACodedBufferSegment.self, capacity: 1)
        segment.initialize(to: VACodedBufferSegment())
        segment.pointee.size = UInt32(codedLength)
        segment.pointee.bit_offset = 0
        segment.pointee.status = codedStatus
        segment.pointee.buf = UnsafeMutableRawPointer(codedPayload)
        segment.pointee.next = nil
        return memory.base
    }
}
