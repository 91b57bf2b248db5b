import CLibVA

/// Checks the field parameters of a picture against its slice headers, as hardware meets them: a decoder
/// writes the rows CurrPic's flags name and predicts from the fields RefPicList names, whatever the slice
/// data says. Any mismatch is a ``ParameterViolation``; vtksoft still decodes what the slices say.
enum FieldParameterCheck {
    static let top = UInt32(VA_PICTURE_H264_TOP_FIELD), bottom = UInt32(VA_PICTURE_H264_BOTTOM_FIELD)
    static let fieldBits = top | bottom
    static let invalid = UInt32(VA_PICTURE_H264_INVALID)

    /// The field bit a picture of `structure` carries (none for a frame).
    static func bits(_ structure: PictureStructure) -> UInt32 {
        switch structure {
        case .frame: return 0
        case .topField: return top
        case .bottomField: return bottom
        }
    }

    /// field_pic_flag and CurrPic's field flag against the slice header's field_pic_flag and
    /// bottom_field_flag (7.4.3). A frame may carry both field bits or none (clients differ).
    static func picture(_ p: VAPictureParameterBufferH264, structure: PictureStructure) -> [ParameterViolation] {
        var found: [ParameterViolation] = []
        let sentFieldPic = Int(p.pic_fields.bits.field_pic_flag), expected = structure.isField ? 1 : 0
        if sentFieldPic != expected {
            found.append(ParameterViolation(field: "field_pic_flag", slice: 0, sent: sentFieldPic, expected: expected,
                                            explanation: "the slice header's field_pic_flag is \(expected)"))
        }
        let flags = p.CurrPic.flags, parity = flags & fieldBits
        let right = structure.isField ? parity == bits(structure) : parity == 0 || parity == fieldBits
        if !right {
            let wanted = (flags & ~fieldBits) | bits(structure)
            found.append(ParameterViolation(field: "CurrPic.flags", slice: 0, sent: Int(flags), expected: Int(wanted),
                                            explanation: "the slices code \(describe(structure)), so a decoder would write the wrong rows"))
        }
        return found
    }

    /// Each active RefPicList0/1 entry of a slice against ReferenceFrames (8.2.4.2): it names a surface
    /// ReferenceFrames holds; in a field picture it names one field, which ReferenceFrames marks as a
    /// reference (an entry without a field flag has both); in a frame (MBAFF too) it names a frame whose
    /// both fields are references. The second field may name the first field of its own frame (CurrPic's
    /// surface). Invalid entries are left alone: clients send them for references the stream lost.
    static func referenceLists(_ s: VASliceParameterBufferH264, index: Int, sliceType: Int, picture p: VAPictureParameterBufferH264,
                               structure: PictureStructure) -> [ParameterViolation] {
        let isB = sliceType == 1, isP = sliceType == 0 || sliceType == 3
        let count0 = isP || isB ? Int(s.num_ref_idx_l0_active_minus1) + 1 : 0, count1 = isB ? Int(s.num_ref_idx_l1_active_minus1) + 1 : 0
        guard count0 > 0 else { return [] }
        var found: [ParameterViolation] = []
        // The lists are read where they lie (no copies), and an entry's name is written only for a violation.
        withUnsafeBytes(of: p.ReferenceFrames) { frameBytes in
            let frames = frameBytes.bindMemory(to: VAPictureH264.self)
            func check(_ list: String, _ entries: UnsafeBufferPointer<VAPictureH264>, count: Int) {
                for (i, entry) in entries.prefix(count).enumerated() where entry.flags & invalid == 0 && entry.picture_id != VA_INVALID_SURFACE {
                    let parity = entry.flags & fieldBits
                    func violation(expected: Int, _ why: String) {
                        found.append(ParameterViolation(field: list, slice: index, sent: Int(entry.flags), expected: expected, explanation: "\(list)[\(i)]: \(why)"))
                    }
                    if structure.isField && parity != top && parity != bottom {
                        violation(expected: -1, "a field picture's entry names one field (TOP_FIELD or BOTTOM_FIELD)")
                        continue
                    }
                    if !structure.isField && parity != 0 && parity != fieldBits {
                        violation(expected: Int(entry.flags & ~fieldBits), "a frame's entry names a frame, not a field")
                        continue
                    }
                    if structure.isField && entry.picture_id == p.CurrPic.picture_id && parity != bits(structure) {
                        continue  // the first field of the current frame
                    }
                    guard let stored = frames.first(where: { $0.flags & invalid == 0 && $0.picture_id != VA_INVALID_SURFACE && $0.picture_id == entry.picture_id }) else {
                        violation(expected: -1, "surface \(entry.picture_id) is not in ReferenceFrames")
                        continue
                    }
                    let storedParity = stored.flags & fieldBits
                    let referenced = storedParity == 0 || storedParity == fieldBits ? fieldBits : storedParity
                    if structure.isField && referenced & parity == 0 {
                        violation(expected: -1, "ReferenceFrames holds only the \(referenced == top ? "top" : "bottom") field of surface \(entry.picture_id) as a reference")
                    } else if !structure.isField && referenced != fieldBits {
                        violation(expected: -1, "ReferenceFrames holds only one field of surface \(entry.picture_id), which a frame cannot reference")
                    }
                }
            }
            withUnsafeBytes(of: s.RefPicList0) { check("RefPicList0", $0.bindMemory(to: VAPictureH264.self), count: count0) }
            if count1 > 0 { withUnsafeBytes(of: s.RefPicList1) { check("RefPicList1", $0.bindMemory(to: VAPictureH264.self), count: count1) } }
        }
        return found
    }

    static func describe(_ structure: PictureStructure) -> String {
        switch structure {
        case .frame: return "a frame"
        case .topField: return "the top field"
        case .bottomField: return "the bottom field"
        }
    }
}
