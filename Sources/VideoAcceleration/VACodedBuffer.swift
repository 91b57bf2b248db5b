import CLibVA

/// An encoder's output buffer (VAEncCodedBufferType): the driver writes the coded picture into it at
/// vaEndPicture; mapping it gives a list of VACodedBufferSegment (va.h) that this reads out in order.
public final class VACodedBuffer: @unchecked Sendable {
    public let id: VABufferID
    public let capacity: Int
    private let context: VAContext

    public init(_ context: VAContext, capacity: Int) throws(VAError) {
        var id = VABufferID(VA_INVALID_ID)
        try VAError.check(vaCreateBuffer(context.connection.display, context.id, VAEncCodedBufferType, UInt32(capacity), 1, nil, &id),
                          "vaCreateBuffer(coded, \(capacity) bytes)")
        self.id = id
        self.capacity = capacity
        self.context = context
    }

    deinit { vaDestroyBuffer(context.connection.display, id) }

    /// The bytes of every segment, concatenated. Call after the source surface is synced; throws when the
    /// driver marked a segment as overflowing (VA_CODED_BUF_STATUS_SLICE_OVERFLOW_MASK).
    public func read() throws(VAError) -> [UInt8] {
        let display = context.connection.display
        var mapped: UnsafeMutableRawPointer?
        try VAError.check(vaMapBuffer(display, id, &mapped), "vaMapBuffer(coded \(id))")
        defer { vaUnmapBuffer(display, id) }
        var out: [UInt8] = []
        var segment = mapped?.assumingMemoryBound(to: VACodedBufferSegment.self)
        while let current = segment {
            let s = current.pointee
            if s.status & UInt32(VA_CODED_BUF_STATUS_SLICE_OVERFLOW_MASK) != 0 {
                throw VAError("coded buffer \(id)", VAStatus(VA_STATUS_ERROR_NOT_ENOUGH_BUFFER),
                              detail: "the coded picture overflowed the \(capacity)-byte buffer")
            }
            if let bytes = s.buf, s.size > 0 {
                out.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: Int(s.size)))
            }
            segment = s.next?.assumingMemoryBound(to: VACodedBufferSegment.self)
        }
        return out
    }
}
