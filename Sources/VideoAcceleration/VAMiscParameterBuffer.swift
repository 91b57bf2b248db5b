import CLibVA

extension VAContext {
    /// A VAEncMiscParameterBufferType buffer: the VAEncMiscParameterBuffer header (its `type`) followed by
    /// `payload` (va.h: "the misc parameter data follows the header").
    public func miscParameterBuffer<T>(_ type: VAEncMiscParameterType, _ payload: T) throws(VAError) -> VABufferID {
        let header = MemoryLayout<VAEncMiscParameterBuffer>.size
        var bytes = [UInt8](repeating: 0, count: header + MemoryLayout<T>.size)
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: type.rawValue, as: UInt32.self)
            withUnsafeBytes(of: payload) { source in
                guard let to = raw.baseAddress, let from = source.baseAddress else { return }
                to.advanced(by: header).copyMemory(from: from, byteCount: source.count)
            }
        }
        var id = VABufferID(VA_INVALID_ID)
        let status = bytes.withUnsafeMutableBytes { raw in
            vaCreateBuffer(connection.display, self.id, VAEncMiscParameterBufferType, UInt32(raw.count), 1, raw.baseAddress, &id)
        }
        guard status == VA_STATUS_SUCCESS else { throw VAError("vaCreateBuffer(misc parameter type \(type.rawValue))", status) }
        return id
    }
}
