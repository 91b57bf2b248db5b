// Shared by the encode-parameter fuzz targets (FuzzHEVCEncode.swift, FuzzH264Encode.swift), compiled into each
// through its fuzz-inside line: the input's layout, the pokes into C parameter structs, and the run of clean
// pictures, mutated, through one of vtksoft's engine sessions as vaEndPicture and the worker drive it.
//
// Input: a setup byte (the harness's choice of profile, sizes, rate control, persona), a byte of pictures to
// mutate (bit n: picture n's parameters; bit 3 + n: a packed header with picture n), 4-byte pokes (buffer:
// 0 sequence, 1 picture, 2 slice, 3 rate-control misc; offset low, high; value) until a 0xFF buffer byte, then a
// packed header type byte (low 2 bits the VAEncPackedHeaderType, 0x80 the misc flag, 0x40 emulation bytes) and its bytes.
import CLibVA

/// The input, read from the front; zeros once it is used up.
struct EncodeFuzzInput {
    let setup: UInt8
    let mutated: UInt8
    let pokes: [(buffer: UInt8, offset: Int, value: UInt8)]
    let packedType: UInt8
    let packed: [UInt8]

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        var position = 0
        func byte() -> UInt8 {
            defer { position += 1 }
            return position < bytes.count ? bytes[position] : 0
        }
        setup = byte()
        mutated = byte()
        var pokes: [(buffer: UInt8, offset: Int, value: UInt8)] = []
        while bytes.count - position >= 4 {
            let buffer = byte()
            if buffer == 0xFF { break }
            pokes.append((buffer, Int(byte()) | Int(byte()) << 8, byte()))
        }
        self.pokes = pokes
        packedType = byte()
        packed = position < bytes.count ? Array(bytes[position...]) : []
    }
}

extension EncodeFuzzInput {
    /// Setup bits 2-3: the rate control mode.
    var rateControl: UInt32 { UInt32([VA_RC_CQP, VA_RC_CBR, VA_RC_VBR, VA_RC_CQP][Int(setup >> 2) & 3]) }
    /// Setup bits 4-5: who writes the parameter sets (the persona's packed-header policy).
    var policy: PackedHeaderPolicy { [.driverUnlessClient, .clientOnly, .driverOnly, .driverUnlessClient][Int(setup >> 4) & 3] }
    /// What the harness's session is told the client packs: sequence and slice headers.
    static let packedHeaders = UInt32(VA_ENC_PACKED_HEADER_SEQUENCE | VA_ENC_PACKED_HEADER_SLICE)
}

/// A reference picture entry of a codec's VA parameters (VAPictureH264, VAPictureHEVC).
protocol EncodeFuzzEntry {
    init()
    var picture_id: VASurfaceID { get set }
    var flags: UInt32 { get set }
    /// VA_PICTURE_H264_INVALID, VA_PICTURE_HEVC_INVALID.
    static var invalidFlag: UInt32 { get }
}

extension EncodeFuzzEntry {
    /// The entry that pads the codec's C arrays: no surface, flagged invalid.
    static var invalid: Self {
        var p = Self()
        p.picture_id = VASurfaceID(VA_INVALID_SURFACE)
        p.flags = invalidFlag
        return p
    }
}

/// The four surfaces a harness names 0...3, `side` x `side`: the source (0, the gradient) and three reconstructions.
func encodeFuzzSurfaces(side: Int, format: SurfaceFormat = .nv12) -> [Surface] {
    let surfaces = (0..<4).map { _ in Surface(width: side, height: side, format: format) }
    encodeFuzzFill(surfaces[0])
    return surfaces
}

/// One picture of a harness: its clean parameters.
struct EncodeFuzzPicture<Sequence, Picture, Slice> {
    var sequence: Sequence
    var picture: Picture
    var slice: Slice
}

/// `entries` written into a C array of `Entry` (reference lists and frames), the rest invalid.
func encodeFuzzFill<Entry: EncodeFuzzEntry, Tuple>(_ tuple: inout Tuple, _ entries: [Entry]) {
    let invalid = Entry.invalid
    withUnsafeMutableBytes(of: &tuple) { raw in
        for i in 0..<raw.count / MemoryLayout<Entry>.stride {
            raw.storeBytes(of: i < entries.count ? entries[i] : invalid, toByteOffset: i * MemoryLayout<Entry>.stride, as: Entry.self)
        }
    }
}

/// The clean rate-control misc parameter (used under CBR and VBR).
func encodeFuzzRateControl() -> VAEncMiscParameterRateControl {
    var rc = VAEncMiscParameterRateControl()
    rc.bits_per_second = 200_000
    rc.target_percentage = 90
    rc.window_size = 1000
    rc.initial_qp = 30
    rc.min_qp = 10
    rc.max_qp = 50
    return rc
}

func encodeFuzzBytes<T>(of value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

/// Writes `value` at `offset` (modulo the size) into the bytes of `target`.
func encodeFuzzPoke<T>(_ target: inout T, offset: Int, value: UInt8) {
    withUnsafeMutableBytes(of: &target) { raw in raw[offset % raw.count] = value }
}

/// A gradient in `surface`'s luma (8 bits in NV12, in the high bits of P010).
func encodeFuzzFill(_ surface: Surface) {
    for y in 0..<surface.height {
        for x in 0..<surface.width {
            let v = (x * 5 + y * 3) & 0xFF
            if surface.format == .p010 {
                (surface.memory.base + y * surface.pitch).storeBytes(of: UInt16(v << 8), toByteOffset: 2 * x, as: UInt16.self)
            } else {
                (surface.memory.base + y * surface.pitch).storeBytes(of: UInt8(v), toByteOffset: x, as: UInt8.self)
            }
        }
    }
}

/// Codes `pictures` in order through `session` with the input's mutations, `source` the render target and
/// `surfaces` what surface ids 0... name. A VA error is an answer; a crash, or a success with no bytes, a finding.
func encodeFuzzRun<Session: EngineEncodeSession, Sequence, Picture, Slice>(
    _ session: Session, _ input: EncodeFuzzInput, pictures: [EncodeFuzzPicture<Sequence, Picture, Slice>],
    source: Surface, surfaces: [Surface]
) {
    let rateControl = encodeFuzzRateControl()
    func surface(_ id: VASurfaceID) throws(VAError) -> Surface {
        guard Int(id) < surfaces.count else { throw VAError.invalidSurface }
        return surfaces[Int(id)]
    }
    for (index, clean) in pictures.enumerated() {
        var p = clean, misc = rateControl
        if input.mutated & (1 << index) != 0 {
            for poke in input.pokes {
                switch poke.buffer % 4 {
                case 0: encodeFuzzPoke(&p.sequence, offset: poke.offset, value: poke.value)
                case 1: encodeFuzzPoke(&p.picture, offset: poke.offset, value: poke.value)
                case 2: encodeFuzzPoke(&p.slice, offset: poke.offset, value: poke.value)
                default: encodeFuzzPoke(&misc, offset: poke.offset, value: poke.value)
                }
            }
        }
        // VAEncMiscParameterBuffer: the type, then the payload (va.h).
        var miscBytes = [UInt8](repeating: 0, count: MemoryLayout<VAEncMiscParameterBuffer>.size)
        withUnsafeBytes(of: VAEncMiscParameterTypeRateControl.rawValue) { for (i, b) in $0.enumerated() { miscBytes[i] = b } }
        miscBytes += encodeFuzzBytes(of: misc)
        var rendered = [RenderedBuffer(type: VAEncSequenceParameterBufferType, elementSize: MemoryLayout<Sequence>.size, elementCount: 1,
                                       bytes: encodeFuzzBytes(of: p.sequence)),
                        RenderedBuffer(type: VAEncPictureParameterBufferType, elementSize: MemoryLayout<Picture>.size, elementCount: 1,
                                       bytes: encodeFuzzBytes(of: p.picture)),
                        RenderedBuffer(type: VAEncMiscParameterBufferType, elementSize: miscBytes.count, elementCount: 1, bytes: miscBytes)]
        if !input.packed.isEmpty, input.mutated & (8 << index) != 0 {
            var parameter = VAEncPackedHeaderParameterBuffer()
            parameter.type = UInt32(input.packedType % 4) | (input.packedType & 0x80 != 0 ? 0x8000_0000 : 0)
            parameter.bit_length = UInt32(input.packed.count * 8)
            parameter.has_emulation_bytes = input.packedType & 0x40 != 0 ? 1 : 0
            rendered.append(RenderedBuffer(type: VAEncPackedHeaderParameterBufferType, elementSize: MemoryLayout.size(ofValue: parameter),
                                           elementCount: 1, bytes: encodeFuzzBytes(of: parameter)))
            rendered.append(RenderedBuffer(type: VAEncPackedHeaderDataBufferType, elementSize: input.packed.count, elementCount: 1, bytes: input.packed))
        }
        rendered.append(RenderedBuffer(type: VAEncSliceParameterBufferType, elementSize: MemoryLayout<Slice>.size, elementCount: 1,
                                       bytes: encodeFuzzBytes(of: p.slice)))
        do throws(VAError) {
            let prepared = try session.prepare(rendered, source: source, surface: surface)
            let output = try session.encode(prepared, hashReconstruction: index == 1)
            precondition(!output.stream.isEmpty, "picture \(index) coded into nothing")
        } catch {
            _ = error.status
        }
    }
}
