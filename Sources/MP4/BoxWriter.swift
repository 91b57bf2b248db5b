/// Builds boxes in memory: big-endian fields, and nested boxes whose sizes are filled in when they close.
struct BoxWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
    mutating func u24(_ v: UInt32) { for shift in [16, 8, 0] { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) } }
    mutating func u32(_ v: UInt32) { for shift in [24, 16, 8, 0] { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) } }
    mutating func u64(_ v: UInt64) { u32(UInt32(v >> 32)); u32(UInt32(truncatingIfNeeded: v)) }
    mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func fourCC(_ v: FourCC) { u32(v.rawValue) }
    mutating func zeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }
    mutating func append(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    /// The unity matrix of `mvhd` and `tkhd`.
    mutating func unityMatrix() {
        for v: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { u32(v) }
    }

    mutating func box(_ type: FourCC, _ body: (inout BoxWriter) -> Void) {
        let start = bytes.count
        u32(0)
        fourCC(type)
        body(&self)
        let size = UInt32(bytes.count - start)
        for (i, shift) in [24, 16, 8, 0].enumerated() { bytes[start + i] = UInt8(truncatingIfNeeded: size >> UInt32(shift)) }
    }

    mutating func fullBox(_ type: FourCC, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout BoxWriter) -> Void) {
        box(type) { w in
            w.u8(version)
            w.u24(flags)
            body(&w)
        }
    }
}
