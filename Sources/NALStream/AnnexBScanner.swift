#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the NAL units of an Annex B byte stream (B.1): units separated by 3-byte (0x000001) or
/// 4-byte (0x00000001) start codes, with any number of trailing zero bytes between them.
///
/// The search jumps from one 0x01 byte to the next with `memchr` (vectorised in libc) and only then looks
/// back for the two zero bytes, so it does not test every byte one by one. Payloads are slices of the
/// input, never copied.
public enum AnnexBScanner {
    /// Start-code positions in `bytes`: for each, the offset of the first 0x00 of the 0x000001 prefix
    /// (three bytes before the NAL unit's header byte).
    public static func startCodeOffsets(in bytes: [UInt8], from start: Int = 0) -> [Int] {
        var result: [Int] = []
        bytes.withUnsafeBufferPointer { buf in
            var position = start
            while let found = nextStartCode(in: buf, from: position) {
                result.append(found)
                position = found + 3
            }
        }
        return result
    }

    /// The offset of the next 0x000001 at or after `from` (the offset of its first zero), or nil.
    @inlinable
    public static func nextStartCode(in buf: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard let base = buf.baseAddress else { return nil }
        let count = buf.count
        var index = from + 2  // the 0x01 can be at from + 2 at the earliest
        while index < count {
            guard let hit = memchr(base + index, 0x01, count - index) else { return nil }
            let one = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if base[one - 1] == 0 && base[one - 2] == 0 { return one - 2 }
            index = one + 1
        }
        return nil
    }

    /// Splits a complete byte stream into NAL units. Bytes before the first start code (which a
    /// conforming stream does not have) are ignored; trailing zero bytes of each unit (B.1's
    /// trailing_zero_8bits, and the leading zero of a 4-byte start code) are not part of the unit.
    public static func nalUnits(in bytes: [UInt8]) -> [NALUnit] {
        var units: [NALUnit] = []
        bytes.withUnsafeBufferPointer { buf in
            guard var current = nextStartCode(in: buf, from: 0) else { return }
            while true {
                let payloadStart = current + 3
                let next = nextStartCode(in: buf, from: payloadStart)
                var end = next ?? buf.count
                while end > payloadStart && buf[end - 1] == 0 { end -= 1 }
                if end > payloadStart {
                    units.append(NALUnit(bytes: bytes[payloadStart..<end], offset: payloadStart))
                }
                guard let n = next else { break }
                current = n
            }
        }
        return units
    }

    /// Writes NAL units as an Annex B byte stream with 4-byte start codes.
    /// Inlinable, and sized before it is filled: vtksoft builds every picture's access unit with it.
    @inlinable
    public static func byteStream<C: Collection>(_ units: C) -> [UInt8] where C.Element == NALUnit {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + 4 + $1.bytes.count })
        for unit in units {
            out.append(contentsOf: [0, 0, 0, 1])
            out.append(contentsOf: unit.bytes)
        }
        return out
    }
}
