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

    /// ``removeWithPositions(_:)`` for an array slice (slice headers' prefixes): straight to the contiguous
    /// path, without the generic function's run-time dispatch.
    public static func removeWithPositions(_ payload: ArraySlice<UInt8>) -> (rbsp: [UInt8], removed: [Int]) {
        payload.withUnsafeBufferPointer(removeWithPositions(contiguous:))
    }

    /// The RBSP of `payload` with the offsets of the bytes removed, as ``removeWithPositions(_:)`` gives them, but
    /// `payload` itself, not copied, when it holds no emulation prevention byte (most slice headers).
    public static func unescaped(_ payload: ArraySlice<UInt8>) -> (rbsp: ArraySlice<UInt8>, removed: [Int]) {
        guard payload.withUnsafeBufferPointer({ nextRemoved(in: $0, from: 0) }) != nil else { return (payload, []) }
        let (rbsp, removed) = removeWithPositions(payload)
        return (rbsp[...], removed)
    }

    /// ``removeWithPositions(_:)`` over contiguous bytes: the runs between removed bytes copied whole.
    static func removeWithPositions(contiguous payload: UnsafeBufferPointer<UInt8>) -> (rbsp: [UInt8], removed: [Int]) {
        var removed = [Int]()
        let rbsp = [UInt8](unsafeUninitializedCapacity: payload.count) { out, written in
            written = 0
            guard let source = payload.baseAddress, let target = out.baseAddress else { return }
            var runStart = 0
            while let index = nextRemoved(in: payload, from: runStart) {
                (target + written).initialize(from: source + runStart, count: index - runStart)
                written += index - runStart
                removed.append(index)
                runStart = index + 1
            }
            (target + written).initialize(from: source + runStart, count: payload.count - runStart)
            written += payload.count - runStart
        }
        return (rbsp, removed)
    }

    /// The offset of the first emulation prevention byte (a 0x03 after two zero bytes) at or after `start`, where
    /// `start` is 0 or follows a removed byte (no zero bytes before it count).
    static func nextRemoved(in payload: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let source = payload.baseAddress else { return nil }
        var zeros = 0, index = start
        while index < payload.count {
            // Eight bytes without a zero byte, after a byte that is not zero, hold no emulation prevention byte:
            // skipped at once (most of a slice header, most of any payload).
            if zeros == 0 && index + 8 <= payload.count {
                let word = UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)
                if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
            }
            let byte = source[index]
            if zeros >= 2 && byte == 0x03 { return index }
            zeros = byte == 0 ? zeros + 1 : 0
            index += 1
        }
        return nil
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
