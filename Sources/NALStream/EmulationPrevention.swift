/// Emulation prevention (7.4.1): the 0x03 bytes an encoder inserts so that a NAL unit's payload never
/// contains a start code, and their removal to get the RBSP back.
public enum EmulationPrevention {
    /// Removes each emulation_prevention_three_byte (0x00 0x00 0x03 -> 0x00 0x00).
    public static func remove<C: Collection>(_ payload: C) -> [UInt8] where C.Element == UInt8 {
        removeWithPositions(payload).rbsp
    }

    /// Removes emulation prevention bytes, also returning their offsets in `payload` (ascending), which
    /// callers need to turn an RBSP bit position back into a payload bit position.
    public static func removeWithPositions<C: Collection>(_ payload: C) -> (rbsp: [UInt8], removed: [Int]) where C.Element == UInt8 {
        // Arrays and their slices (every caller's payload) take the non-generic path: this generic function is
        // not specialised across modules, and its byte-by-byte iteration was a measurable part of a decode.
        if let result = payload.withContiguousStorageIfAvailable(removeWithPositions(contiguous:)) { return result }
        var out = [UInt8]()
        out.reserveCapacity(payload.count)
        var removed = [Int]()
        var zeros = 0
        var index = 0
        for byte in payload {
            if zeros >= 2 && byte == 0x03 {
                removed.append(index)
                zeros = 0
                index += 1
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
            index += 1
        }
        return (out, removed)
    }

    /// ``removeWithPositions(_:)`` over contiguous bytes: the runs between removed bytes copied whole.
    static func removeWithPositions(contiguous payload: UnsafeBufferPointer<UInt8>) -> (rbsp: [UInt8], removed: [Int]) {
        var removed = [Int]()
        let rbsp = [UInt8](unsafeUninitializedCapacity: payload.count) { out, written in
            written = 0
            guard let source = payload.baseAddress, let target = out.baseAddress else { return }
            var zeros = 0, runStart = 0
            for index in 0..<payload.count {
                let byte = source[index]
                if zeros >= 2 && byte == 0x03 {
                    (target + written).initialize(from: source + runStart, count: index - runStart)
                    written += index - runStart
                    removed.append(index)
                    runStart = index + 1
                    zeros = 0
                    continue
                }
                zeros = byte == 0 ? zeros + 1 : 0
            }
            (target + written).initialize(from: source + runStart, count: payload.count - runStart)
            written += payload.count - runStart
        }
        return (rbsp, removed)
    }

    /// Inserts emulation prevention bytes (7.4.1): after two zero bytes, a byte <= 0x03 gets 0x03 first.
    /// A payload that ends in 0x00 also gets a final 0x03 (cabac_zero_word rule), so that it can be
    /// followed by a start code.
    public static func insert(_ rbsp: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 2)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 0x03 {
                out.append(0x03)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if let last = out.last, last == 0 { out.append(0x03) }
        return out
    }
}
