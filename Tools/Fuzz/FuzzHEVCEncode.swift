// libFuzzer target: vtksoft's H.265 encode path without VA, as vaEndPicture and the worker drive it
// (HEVCEncodeSession.prepare, then encode: the checks, the header derivation, the engine adapter and the
// engine) on 16x16 pictures. A clean IDR, P and B are mutated by the input: its first bytes choose the profile,
// CTB size, rate control, persona limits and which pictures are mutated; then 4-byte pokes (buffer, offset, value)
// into the sequence, picture and slice parameters and the rate-control misc parameter; what follows a 0xFF
// byte is a packed header (its first byte the VAEncPackedHeaderType). A VA error or a counted violation is
// fine; a crash, a trap or a success without a coded slice is a finding.
// fuzz-inside: Sources/VTKSoft/HEVCEncodeSession.swift Sources/VTKSoft/HEVCSurfacePictureConversion.swift
// fuzz-inside: Sources/VTKSoft/Personas/VTKSoftPersona.swift Sources/VTKSoft/Personas/IHD.swift Sources/VTKSoft/Personas/I965.swift
// fuzz-inside: Sources/VTKSoft/Personas/RadeonSI.swift Sources/VTKSoft/Personas/NVIDIA.swift
// fuzz-inside: Sources/VTKSoft/SurfacePresentation.swift Sources/VTKSoft/SurfacePictureConversion.swift

import CLibVA

/// The input, read from the front; zeros once it is used up.
private struct FuzzInput {
    let bytes: [UInt8]
    var position = 0
    var remaining: Int { bytes.count - position }
    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}

/// `VAPictureHEVC` entries written into a C array of 15 (reference_frames, ref_pic_list0/1).
private func fill<Tuple>(_ tuple: inout Tuple, _ entries: [VAPictureHEVC]) {
    withUnsafeMutableBytes(of: &tuple) { raw in
        let count = raw.count / MemoryLayout<VAPictureHEVC>.stride
        for i in 0..<count {
            var entry = VAPictureHEVC()
            if i < entries.count { entry = entries[i] } else {
                entry.picture_id = VASurfaceID(VA_INVALID_SURFACE)
                entry.flags = UInt32(VA_PICTURE_HEVC_INVALID)
            }
            raw.storeBytes(of: entry, toByteOffset: i * MemoryLayout<VAPictureHEVC>.stride, as: VAPictureHEVC.self)
        }
    }
}

private func entry(_ id: VASurfaceID, poc: Int32) -> VAPictureHEVC {
    var p = VAPictureHEVC()
    p.picture_id = id
    p.pic_order_cnt = poc
    p.flags = UInt32(VA_PICTURE_HEVC_RPS_ST_CURR_BEFORE)
    return p
}

private func bytes<T>(of value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

/// Writes `value` at `offset` (modulo the size) into the bytes of `target`.
private func poke<T>(_ target: inout T, offset: Int, value: UInt8) {
    withUnsafeMutableBytes(of: &target) { raw in raw[offset % raw.count] = value }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEVCEncode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(bytes: data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    let setup = input.byte(), mutated = input.byte()
    let tenBit = setup & 1 != 0
    let ctbLog2 = setup & 2 != 0 ? 5 : 4
    let rateControl = [VA_RC_CQP, VA_RC_CBR, VA_RC_VBR, VA_RC_CQP][Int(setup >> 2) & 3]
    let policy: PackedHeaderPolicy = [.driverUnlessClient, .clientOnly, .driverOnly, .driverUnlessClient][Int(setup >> 4) & 3]
    var limits = HEVCEncodeSession.Limits()
    limits.futureReferences = setup & 0x40 == 0
    if setup & 0x80 != 0 { limits.ctbLog2Sizes = 5...5 }
    let session = HEVCEncodeSession(profile: tenBit ? VAProfileHEVCMain10 : VAProfileHEVCMain, rateControl: UInt32(rateControl),
                                    packedHeaders: UInt32(VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_SLICE), policy: policy, limits: limits)
    let side = 16
    let surfaces = (0..<4).map { _ in Surface(width: side, height: side, format: tenBit ? .p010 : .nv12) }
    let source = surfaces[0]
    for y in 0..<side {
        for x in 0..<side {
            let v = (x * 5 + y * 3) & 0xFF
            if tenBit {
                (source.memory.base + y * source.pitch).storeBytes(of: UInt16(v << 8), toByteOffset: 2 * x, as: UInt16.self)
            } else {
                (source.memory.base + y * source.pitch).storeBytes(of: UInt8(v), toByteOffset: x, as: UInt8.self)
            }
        }
    }
    func surface(_ id: VASurfaceID) throws(VAError) -> Surface {
        guard Int(id) < surfaces.count else { throw VAError.invalidSurface }
        return surfaces[Int(id)]
    }

    // The clean sequence: 16x16 Main (or Main 10), CTB 16 or 32, 8x8 coding blocks, 4x4...16 transforms.
    var sequence = VAEncSequenceParameterBufferHEVC()
    sequence.general_profile_idc = tenBit ? 2 : 1
    sequence.general_level_idc = 30
    sequence.intra_period = 30
    sequence.intra_idr_period = 30
    sequence.ip_period = 2
    sequence.bits_per_second = 200_000
    sequence.pic_width_in_luma_samples = UInt16(side)
    sequence.pic_height_in_luma_samples = UInt16(side)
    sequence.seq_fields.bits.chroma_format_idc = 1
    sequence.seq_fields.bits.bit_depth_luma_minus8 = tenBit ? 2 : 0
    sequence.seq_fields.bits.bit_depth_chroma_minus8 = tenBit ? 2 : 0
    sequence.seq_fields.bits.sps_temporal_mvp_enabled_flag = 1
    sequence.seq_fields.bits.sample_adaptive_offset_enabled_flag = 1
    sequence.log2_min_luma_coding_block_size_minus3 = 0
    sequence.log2_diff_max_min_luma_coding_block_size = UInt8(ctbLog2 - 3)
    sequence.log2_min_transform_block_size_minus2 = 0
    sequence.log2_diff_max_min_transform_block_size = 2
    sequence.max_transform_hierarchy_depth_inter = 2
    sequence.max_transform_hierarchy_depth_intra = 2
    var rateControlMisc = VAEncMiscParameterRateControl()
    rateControlMisc.bits_per_second = 200_000
    rateControlMisc.target_percentage = 90
    rateControlMisc.window_size = 1000
    rateControlMisc.initial_qp = 30
    rateControlMisc.min_qp = 10
    rateControlMisc.max_qp = 50

    // IDR into surface 1, P from it into 2, B from both into 3 (POC 0, 2, 1).
    let plan: [(poc: Int32, target: VASurfaceID, list0: [VAPictureHEVC], list1: [VAPictureHEVC])] = [
        (0, 1, [], []),
        (2, 2, [entry(1, poc: 0)], []),
        (1, 3, [entry(1, poc: 0)], [entry(2, poc: 2)]),
    ]
    var pokes: [(buffer: UInt8, offset: Int, value: UInt8)] = []
    while input.remaining >= 4 {
        let buffer = input.byte()
        if buffer == 0xFF { break }
        pokes.append((buffer, Int(input.byte()) | Int(input.byte()) << 8, input.byte()))
    }
    let packedType = input.byte()
    let packed = input.rest()

    for (index, step) in plan.enumerated() {
        var picture = VAEncPictureParameterBufferHEVC()
        picture.decoded_curr_pic = entry(step.target, poc: step.poc)
        picture.decoded_curr_pic.flags = 0
        fill(&picture.reference_frames, step.list0 + step.list1)
        picture.collocated_ref_pic_index = index == 0 ? 0xFF : 0
        picture.pic_init_qp = 30
        picture.diff_cu_qp_delta_depth = 0
        picture.nal_unit_type = index == 0 ? 19 : 1
        picture.pic_fields.bits.idr_pic_flag = index == 0 ? 1 : 0
        picture.pic_fields.bits.coding_type = index == 0 ? 1 : UInt32(index + 1)
        picture.pic_fields.bits.reference_pic_flag = index < 2 ? 1 : 0
        var slice = VAEncSliceParameterBufferHEVC()
        let ctbsPerSide = (side + (1 << ctbLog2) - 1) >> ctbLog2
        slice.num_ctu_in_slice = UInt32(ctbsPerSide * ctbsPerSide)
        slice.slice_type = [2, 1, 0][index]
        slice.max_num_merge_cand = 5
        slice.slice_fields.bits.last_slice_of_pic_flag = 1
        slice.slice_fields.bits.slice_temporal_mvp_enabled_flag = 1
        slice.slice_fields.bits.slice_sao_luma_flag = 1
        slice.slice_fields.bits.slice_sao_chroma_flag = 1
        fill(&slice.ref_pic_list0, step.list0)
        fill(&slice.ref_pic_list1, step.list1)
        var sequenceNow = sequence, misc = rateControlMisc
        if mutated & (1 << index) != 0 {
            for p in pokes {
                switch p.buffer % 4 {
                case 0: poke(&sequenceNow, offset: p.offset, value: p.value)
                case 1: poke(&picture, offset: p.offset, value: p.value)
                case 2: poke(&slice, offset: p.offset, value: p.value)
                default: poke(&misc, offset: p.offset, value: p.value)
                }
            }
        }
        // VAEncMiscParameterBuffer: the type, then the payload (va.h).
        var miscBytes = [UInt8](repeating: 0, count: MemoryLayout<VAEncMiscParameterBuffer>.size)
        withUnsafeBytes(of: VAEncMiscParameterTypeRateControl.rawValue) { for (i, b) in $0.enumerated() { miscBytes[i] = b } }
        miscBytes += bytes(of: misc)
        var rendered = [RenderedBuffer(type: VAEncSequenceParameterBufferType, elementSize: MemoryLayout.size(ofValue: sequenceNow), elementCount: 1, bytes: bytes(of: sequenceNow)),
                        RenderedBuffer(type: VAEncPictureParameterBufferType, elementSize: MemoryLayout.size(ofValue: picture), elementCount: 1, bytes: bytes(of: picture)),
                        RenderedBuffer(type: VAEncMiscParameterBufferType, elementSize: miscBytes.count, elementCount: 1, bytes: miscBytes)]
        if !packed.isEmpty, mutated & (8 << index) != 0 {
            var parameter = VAEncPackedHeaderParameterBuffer()
            parameter.type = UInt32(packedType % 4) | (packedType & 0x80 != 0 ? 0x8000_0000 : 0)
            parameter.bit_length = UInt32(packed.count * 8)
            parameter.has_emulation_bytes = packedType & 0x40 != 0 ? 1 : 0
            rendered.append(RenderedBuffer(type: VAEncPackedHeaderParameterBufferType, elementSize: MemoryLayout.size(ofValue: parameter), elementCount: 1,
                                           bytes: bytes(of: parameter)))
            rendered.append(RenderedBuffer(type: VAEncPackedHeaderDataBufferType, elementSize: packed.count, elementCount: 1, bytes: packed))
        }
        rendered.append(RenderedBuffer(type: VAEncSliceParameterBufferType, elementSize: MemoryLayout.size(ofValue: slice), elementCount: 1, bytes: bytes(of: slice)))
        do throws(VAError) {
            let prepared = try session.prepare(rendered, source: source, surface: surface)
            let output = try session.encode(prepared, hashReconstruction: index == 1)
            precondition(!output.stream.isEmpty, "picture \(index) coded into nothing")
        } catch {
            _ = error.status
        }
    }
    return 0
}
