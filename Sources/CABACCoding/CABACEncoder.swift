/// The CABAC arithmetic encoding engine (9.3.4.2–9.3.4.6) writing into its own byte buffer.
///
/// codILow is kept wider than the Recommendation's 10 bits: `queue + 9` bits above the 10-bit window
/// are pending output. Whole bytes leave the register as soon as they are complete; a byte of all ones
/// stays outstanding until a later carry settles it (the byte-wise form of PutBit's bitsOutstanding).
/// Contexts are one byte each, `pStateIdx << 1 | valMPS`, indexed by ctxIdx. Contexts and the state
/// tables live inline in the struct: a bin costs no reference counting, uniqueness check or lazy global.
///
/// The engine is the same in H.264 (9.3.4) and H.265 (9.3.4.3): both encoders use it; each codec
/// numbers and initialises its own contexts.
public struct CABACEncoder {
    public private(set) var bytes: [UInt8] = []
    /// Context variables by ctxIdx (H.264 9.3.1.1 numbers up to 401, H.265 its own up to ``contextCapacity``).
    public var contexts = InlineArray<512, UInt8>(repeating: 0)
    /// How many contexts ``contexts`` holds.
    public static let contextCapacity = 512
    @usableFromInline let rangeLPS = InlineArray<256, UInt8> { CABACEngineTables.rangeLPS[$0] }
    @usableFromInline let nextStateMPS = InlineArray<128, UInt8> { CABACEngineTables.nextStateMPS[$0] }
    @usableFromInline let nextStateLPS = InlineArray<128, UInt8> { CABACEngineTables.nextStateLPS[$0] }
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var range: UInt32 = 510
    /// Bits of ``low`` above the 10-bit window not yet output, minus 9 (the first bit of 9.3.4.2's
    /// PutBit is never written; it is the always-zero integer part). A byte leaves when it reaches 0.
    @usableFromInline var queue = -9
    /// Bytes equal to 0xFF waiting for a possible carry.
    @usableFromInline var outstanding = 0
    /// Bins coded so far, for the cabac_zero_word constraint (9.3.4.6).
    public var binCount = 0

    public init(reservingCapacity capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// 9.3.1.2: start of slice data, and again after pcm samples.
    public mutating func initialise() {
        low = 0
        range = 510
        queue = -9
        outstanding = 0
    }

    /// EncodeDecision (9.3.4.2) with context ctxIdx.
    @inlinable @inline(__always)
    public mutating func encodeDecision(_ bin: Bool, _ ctxIdx: Int) {
        binCount &+= 1
        let state = Int(contexts[ctxIdx])
        let rLPS = UInt32(rangeLPS[(state & ~1) << 1 | Int((range >> 6) & 3)])
        range &-= rLPS
        if (state & 1 != 0) == bin {
            contexts[ctxIdx] = nextStateMPS[state]
            if range >= 256 { return }
            low <<= 1
            range <<= 1
            queue += 1
        } else {
            low &+= UInt64(range)
            range = rLPS
            contexts[ctxIdx] = nextStateLPS[state]
            let shift = range.leadingZeroBitCount - 23
            low <<= UInt64(shift)
            range <<= UInt32(shift)
            queue += shift
        }
        if queue >= 0 { putByte() }
    }

    /// EncodeBypass (9.3.4.4).
    @inlinable @inline(__always)
    public mutating func encodeBypass(_ bin: Bool) {
        binCount &+= 1
        low <<= 1
        if bin { low &+= UInt64(range) }
        queue += 1
        if queue >= 0 { putByte() }
    }

    /// `count` bypass bins of `value`, most significant first.
    @inlinable @inline(__always)
    public mutating func encodeBypassBits(_ value: UInt32, count: Int) {
        var k = count
        while k > 0 {
            k -= 1
            encodeBypass((value >> UInt32(k)) & 1 != 0)
        }
    }

    /// EncodeTerminate (9.3.4.5); a 1 flushes (EncodeFlush), leaving the stream byte aligned after the
    /// final bit, which is rbsp_stop_one_bit for end_of_slice_flag (the zero bits after it are the
    /// alignment) and is followed by pcm_alignment_zero_bits for I_PCM.
    public mutating func encodeTerminate(_ bin: Bool) {
        binCount &+= 1
        range -= 2
        if bin {
            low &+= UInt64(range)
            flush()
        } else if range < 256 {
            low <<= 1
            range <<= 1
            queue += 1
            if queue >= 0 { putByte() }
        }
    }

    /// EncodeFlush (9.3.4.5): codIRange = 2, RenormE, PutBit(codILow >> 9 & 1), WriteBits(codILow >> 7 & 3 | 1, 2),
    /// then zero bits to the byte boundary.
    private mutating func flush() {
        range = 2
        low <<= 7
        queue += 7
        if queue >= 0 { putByte() }
        // RenormE shifted in seven zeros, so bits 0...6 are clear: set the final 1 at bit 7 and move bits
        // 9, 8, 7 above the window.
        low |= 0x80
        low <<= 3
        queue += 3
        if queue >= 0 { putByte() }
        if queue > -8 {
            low <<= UInt64(-queue)
            queue = 0
            putByte()
        }
        while outstanding > 0 {
            bytes.append(0xFF)
            outstanding -= 1
        }
        initialise()
    }

    /// Moves the completed byte (and any carry into the bytes before it) out of ``low``: once per eight
    /// bits, kept out of line so the bin paths stay small.
    @inline(never) @usableFromInline
    mutating func putByte() {
        let shift = UInt64(queue + 10)
        let out = Int(low >> shift)
        low &= (1 << shift) - 1
        queue -= 8
        if out & 0xFF == 0xFF {
            outstanding += 1
            return
        }
        let carry = out >> 8
        if carry != 0, !bytes.isEmpty { bytes[bytes.count - 1] &+= 1 }
        while outstanding > 0 {
            bytes.append(carry != 0 ? 0x00 : 0xFF)
            outstanding -= 1
        }
        bytes.append(UInt8(truncatingIfNeeded: out))
    }

    /// Raw bytes between a flush and ``initialise()`` (pcm_sample_luma / chroma).
    public mutating func appendRaw<C: Collection>(_ more: C) where C.Element == UInt8 {
        bytes.append(contentsOf: more)
    }

    /// Bits written so far, pending ones included (for rate estimates).
    public var bitCount: Int { (bytes.count + outstanding) * 8 + queue + 9 }
}
