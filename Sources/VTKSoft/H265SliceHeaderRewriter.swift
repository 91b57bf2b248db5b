import CLibVA
import H264Bitstream
import H265Bitstream

/// Gives a slice segment its own reference picture set, built from VA's ReferenceFrames, in place of the
/// one the client's stream had (which may name a set of the original SPS that VA does not carry).
///
/// The header is read up to the end of its long-term part with the fields VA gives (st_rps_bits skips
/// the original short-term set), then written again with an explicit short-term set (sps_flag 0) and
/// explicit long-term entries (delta_poc_msb_present_flag 1); the bits after it and the slice data are
/// copied unchanged. NumPicTotalCurr stays the same, so the rest of the header reads as before.
enum H265SliceHeaderRewriter {
    struct Failure: Error {}

    /// The NAL unit with its header rewritten; `nalUnit` unchanged when it has no reference picture set
    /// (IDR pictures, dependent slice segments).
    static func rewrite(_ nalUnit: ArraySlice<UInt8>, slice s: VASliceParameterBufferHEVC, picture p: VAPictureParameterBufferHEVC) throws(Failure) -> [UInt8] {
        guard nalUnit.count > 2 else { throw Failure() }
        let type = (nalUnit[nalUnit.startIndex] >> 1) & 0x3F
        let headerBytes = Int(s.slice_data_byte_offset) - 2
        let payload = nalUnit.dropFirst(2)
        let (rbsp, removed) = EmulationPrevention.removeWithPositions(payload.prefix(headerBytes + 8))
        guard headerBytes > 0, headerBytes <= rbsp.count, type != 19, type != 20 else { return Array(nalUnit) }
        let header = Array(rbsp.prefix(headerBytes))
        let f = p.slice_parsing_fields.bits
        var r = BitReader(header)
        let start: Int, end: Int
        do {
            let first = try r.flag()
            if (16...23).contains(type) { _ = try r.flag() }
            _ = try r.ue()  // slice_pic_parameter_set_id
            if !first {
                var dependent = false
                if f.dependent_slice_segments_enabled_flag != 0 { dependent = try r.flag() }
                let ctb = 1 << (Int(p.log2_min_luma_coding_block_size_minus3) + 3 + Int(p.log2_diff_max_min_luma_coding_block_size))
                let ctbs = ((Int(p.pic_width_in_luma_samples) + ctb - 1) / ctb) * ((Int(p.pic_height_in_luma_samples) + ctb - 1) / ctb)
                try r.skip(bits(ctbs))
                if dependent { return Array(nalUnit) }
            }
            try r.skip(Int(p.num_extra_slice_header_bits))
            _ = try r.ue()  // slice_type
            if f.output_flag_present_flag != 0 { try r.skip(1) }
            if p.pic_fields.bits.separate_colour_plane_flag != 0 { try r.skip(2) }
            let log2Lsb = Int(p.log2_max_pic_order_cnt_lsb_minus4) + 4
            try r.skip(log2Lsb)
            start = r.bitPosition
            if try r.flag() {
                if p.num_short_term_ref_pic_sets > 1 { try r.skip(bits(Int(p.num_short_term_ref_pic_sets))) }
            } else {
                try r.skip(Int(p.st_rps_bits))
            }
            if f.long_term_ref_pics_present_flag != 0 {
                var spsEntries = 0
                if p.num_long_term_ref_pic_sps > 0 { spsEntries = Int(try r.ue()) }
                let count = spsEntries + Int(try r.ue())
                for i in 0..<count {
                    if i < spsEntries {
                        if p.num_long_term_ref_pic_sps > 1 { try r.skip(bits(Int(p.num_long_term_ref_pic_sps))) }
                    } else {
                        try r.skip(log2Lsb + 1)
                    }
                    if try r.flag() { _ = try r.ue() }
                }
            }
            end = r.bitPosition
        } catch {
            throw Failure()
        }
        // The alignment_bit_equal_to_one that ends the header: the last 1 bit.
        guard let lastByte = header.lastIndex(where: { $0 != 0 }) else { throw Failure() }
        let alignment = lastByte * 8 + 7 - header[lastByte].trailingZeroBitCount
        guard alignment >= end else { throw Failure() }

        var w = BitWriter()
        copy(header, from: 0, to: start, into: &w)
        writeReferencePictureSet(p, into: &w, longTerm: f.long_term_ref_pics_present_flag != 0, log2Lsb: Int(p.log2_max_pic_order_cnt_lsb_minus4) + 4)
        copy(header, from: end, to: alignment, into: &w)
        w.flag(true)
        w.alignWithZeros()
        // Where the slice data begins in the escaped payload: the header's bytes plus the emulation
        // prevention bytes removed from them.
        var escapedHeader = headerBytes
        for position in removed where position < escapedHeader { escapedHeader += 1 }
        return Array(nalUnit.prefix(2)) + EmulationPrevention.insertWithoutTrailer(w.bytes) + Array(payload.dropFirst(escapedHeader))
    }

    /// st_ref_pic_set(num_short_term_ref_pic_sets = 0) after short_term_ref_pic_set_sps_flag 0, then the
    /// long-term entries, from ReferenceFrames and their RPS flags.
    private static func writeReferencePictureSet(_ p: VAPictureParameterBufferHEVC, into w: inout BitWriter, longTerm: Bool, log2Lsb: Int) {
        let current = Int(p.CurrPic.pic_order_cnt)
        let frames = withUnsafeBytes(of: p.ReferenceFrames) { Array($0.bindMemory(to: VAPictureHEVC.self)) }
            .filter { $0.picture_id != VASurfaceID(VA_INVALID_SURFACE) && $0.flags & UInt32(VA_PICTURE_HEVC_INVALID) == 0 }
        let isLongTerm = { (f: VAPictureHEVC) in f.flags & UInt32(VA_PICTURE_HEVC_LONG_TERM_REFERENCE) != 0 }
        let used = UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE | VA_PICTURE_HEVC_RPS_ST_CURR_AFTER | VA_PICTURE_HEVC_RPS_LT_CURR)
        let shortTerm = frames.filter { !isLongTerm($0) }
        let before = shortTerm.filter { Int($0.pic_order_cnt) < current }.sorted { $0.pic_order_cnt > $1.pic_order_cnt }
        let after = shortTerm.filter { Int($0.pic_order_cnt) > current }.sorted { $0.pic_order_cnt < $1.pic_order_cnt }
        w.flag(false)  // short_term_ref_pic_set_sps_flag
        w.ue(before.count)
        w.ue(after.count)
        var last = current
        for f in before {
            w.ue(last - Int(f.pic_order_cnt) - 1)
            w.flag(f.flags & used != 0)
            last = Int(f.pic_order_cnt)
        }
        last = current
        for f in after {
            w.ue(Int(f.pic_order_cnt) - last - 1)
            w.flag(f.flags & used != 0)
            last = Int(f.pic_order_cnt)
        }
        guard longTerm else { return }
        let maxLsb = 1 << log2Lsb
        let currentMsb = current - (current & (maxLsb - 1))
        let entries = frames.filter(isLongTerm).map { f -> (lsb: Int, used: Bool, cycle: Int) in
            let poc = Int(f.pic_order_cnt), lsb = poc & (maxLsb - 1)
            return (lsb, f.flags & used != 0, (currentMsb - (poc - lsb)) / maxLsb)
        }.sorted { $0.cycle < $1.cycle }
        w.ue(entries.count)  // num_long_term_pics (num_long_term_sps is absent: the rebuilt SPS has none)
        var previous = 0
        for (i, e) in entries.enumerated() {
            w.u(log2Lsb, e.lsb)
            w.flag(e.used)
            w.flag(true)  // delta_poc_msb_present_flag
            w.ue(max(i == 0 ? e.cycle : e.cycle - previous, 0))
            previous = e.cycle
        }
    }

    private static func copy(_ bytes: [UInt8], from: Int, to: Int, into w: inout BitWriter) {
        var position = from
        while position < to {
            let n = min(32, to - position)
            var value: UInt32 = 0
            for bit in position..<(position + n) { value = value << 1 | UInt32(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1) }
            w.u(n, value)
            position += n
        }
    }

    /// Ceil(Log2(n)).
    private static func bits(_ n: Int) -> Int {
        var b = 0
        while (1 << b) < n { b += 1 }
        return b
    }
}

extension EmulationPrevention {
    /// Inserts emulation prevention bytes without the trailing 0x03 ``insert(_:)`` adds after a final
    /// zero byte: for a slice header whose slice data follows (its last byte is never zero).
    static func insertWithoutTrailer(_ rbsp: [UInt8]) -> [UInt8] {
        var out = insert(rbsp)
        if rbsp.last == 0, out.last == 0x03 { out.removeLast() }
        return out
    }
}
