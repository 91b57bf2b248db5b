import CLibVA
import H264Encoding
import H265Encoding

/// The sample layouts of surfaces: NV12 (8-bit) and P010 (10 bits in the high bits of 16-bit words).
enum SurfaceFormat {
    case nv12, p010

    init?(rtFormat: UInt32) {
        switch rtFormat {
        // A 4:0:0 surface (H.264 monochrome) is laid out as NV12 with its chroma at 128, as libavcodec
        // decodes 4:0:0: clients read it as 4:2:0, which is what fluster's references hold.
        case UInt32(VA_RT_FORMAT_YUV420), UInt32(VA_RT_FORMAT_YUV400): self = .nv12
        case UInt32(VA_RT_FORMAT_YUV420_10): self = .p010
        default: return nil
        }
    }

    /// The layout a VASurfaceAttribPixelFormat names, when vtksoft has it.
    init?(fourcc: UInt32) {
        switch fourcc {
        case ImageLayout.nv12: self = .nv12
        case ImageLayout.p010: self = .p010
        default: return nil
        }
    }

    var fourcc: UInt32 { self == .nv12 ? ImageLayout.nv12 : ImageLayout.p010 }
    var bytesPerSample: Int { self == .nv12 ? 1 : 2 }
}

/// An NV12 or P010 picture in driver memory: a luma plane, then interleaved CbCr at half height.
final class Surface {
    let width: Int
    let height: Int
    let format: SurfaceFormat
    /// Bytes per row of both planes.
    let pitch: Int
    /// Rows allocated for luma: the height rounded up to whole macroblocks, so a decoder can write
    /// the full coded picture of a stream whose visible height is cropped.
    let allocatedHeight: Int
    /// The planes. Replaced by a copy when something must write a surface whose memory libavcodec still
    /// refers to (``releaseFromDecoder()``).
    var memory: PlaneMemory {
        settleChroma()
        return planes
    }
    private var planes: PlaneMemory
    /// The chroma plane is still to be made neutral (the surface is black, not green, until written): done
    /// at the first access to the planes, unless a decoded picture's chroma covers the whole plane first
    /// (``chromaForOverwrite(rows:rowBytes:)``), which then spares the fill.
    private var chromaPending = true
    /// libavcodec's hold on `memory`, when it decoded a picture straight into it.
    var decoderLease: DecoderLease?
    /// Macroblocks the decoder could not decode and concealed in the last picture decoded here (0 when
    /// clean), reported through vaQuerySurfaceError.
    var concealedMacroblocks = 0
    /// Pictures the worker has yet to finish here (vaQuerySurfaceStatus: Rendering while > 0).
    var pendingPictures = 0
    /// What the worker's last picture here failed with, returned by vaSyncSurface.
    var pictureError: VAError?
    /// The native encoder's reconstruction last written here (CurrPic), kept so later pictures predict
    /// from it without converting back from NV12; dropped when anything else writes the surface.
    var reconstruction: EncoderPicture? {
        didSet { if reconstruction == nil { hevcReconstruction = nil } }
    }
    /// The same for the H.265 engine.
    var hevcReconstruction: H265EncoderPicture?
    /// The VASurfaceDecodeMBErrors records handed to the client; valid until the next query (va.h).
    private var errorRecords: UnsafeMutablePointer<VASurfaceDecodeMBErrors>?

    init(width: Int, height: Int, format: SurfaceFormat = .nv12) {
        self.width = width
        self.height = height
        self.format = format
        pitch = (width * format.bytesPerSample + 63) & ~63
        allocatedHeight = (height + 15) & ~15
        planes = PlaneMemory(size: pitch * allocatedHeight * 3 / 2, mapped: true)
    }

    /// Black, not green, for a surface nobody wrote yet (luma is zero already), once something looks.
    private func settleChroma() {
        guard chromaPending else { return }
        chromaPending = false
        if format == .nv12 {
            (planes.base + chromaOffset).initializeMemory(as: UInt8.self, repeating: 128, count: pitch * allocatedHeight / 2)
        } else {
            (planes.base + chromaOffset).initializeMemory(as: UInt16.self, repeating: 0x8000, count: pitch * allocatedHeight / 4)
        }
    }

    /// The planes and their luma, for libavcodec to decode a frame's luma into, leaving the chroma plane as
    /// it is (the picture's chroma is written after, ``chromaForOverwrite(rows:rowBytes:)``).
    var lumaForDecoding: (memory: PlaneMemory, luma: UnsafeMutablePointer<UInt8>) {
        (planes, planes.base.assumingMemoryBound(to: UInt8.self))
    }

    /// The chroma plane, for a write of `rows` rows of `rowBytes` from its start: when that covers the whole
    /// plane, a neutral fill still pending is skipped, since nothing would be left of it.
    func chromaForOverwrite(rows: Int, rowBytes: Int) -> UnsafeMutablePointer<UInt8> {
        if rows >= allocatedHeight / 2 && rowBytes >= pitch { chromaPending = false }
        return chroma
    }

    deinit { errorRecords?.deallocate() }

    /// libavcodec still refers to this surface's memory (a picture it decoded here may be a reference).
    var isHeldByDecoder: Bool { decoderLease?.isHeld ?? false }

    /// For a picture libavcodec is about to decode into the surface while it still holds the surface's
    /// memory: the surface moves to `fresh`, into which is copied only what that picture leaves as it is
    /// (luma outside its `width` x `height`, chroma outside the half-size area interleaved after it).
    /// Returns the memory libavcodec keeps.
    func move(to fresh: PlaneMemory, keepingOutside width: Int, _ height: Int) -> PlaneMemory {
        let old = memory
        decoderLease = nil
        planes = fresh
        func keep(_ offset: Int, rows: Int, written: Int, writtenRows: Int) {
            let from = old.base + offset, to = fresh.base + offset
            if written < pitch {
                for y in 0..<min(writtenRows, rows) { (to + y * pitch + written).copyMemory(from: from + y * pitch + written, byteCount: pitch - written) }
            }
            if writtenRows < rows { (to + writtenRows * pitch).copyMemory(from: from + writtenRows * pitch, byteCount: (rows - writtenRows) * pitch) }
        }
        keep(lumaOffset, rows: allocatedHeight, written: min(width, pitch), writtenRows: min(height, allocatedHeight))
        keep(chromaOffset, rows: allocatedHeight / 2, written: min(2 * ((width + 1) / 2), pitch), writtenRows: min((height + 1) / 2, allocatedHeight / 2))
        return old
    }

    /// Before anything but libavcodec writes the surface: when libavcodec still refers to its memory,
    /// the surface moves to a copy of it, and libavcodec keeps the old memory until it lets go.
    func releaseFromDecoder() {
        guard let lease = decoderLease else { return }
        decoderLease = nil
        guard lease.isHeld else { return }
        let copy = PlaneMemory(size: memory.size, mapped: true)
        copy.base.copyMemory(from: memory.base, byteCount: memory.size)
        planes = copy
    }

    /// Notes what libavcodec made of a picture decoded here: concealed damage is the client's to ask about
    /// (vaSyncSurface's DECODING_ERROR, then vaQuerySurfaceError), and no picture at all is DECODING_ERROR.
    func record(_ outcome: LibavcodecDecoder.Outcome, width: Int, height: Int) throws(VAError) {
        concealedMacroblocks = outcome.hadErrors ? (width / 16) * (height / 16) : 0
        if !outcome.decoded { throw .decodingError }
    }

    /// The error records for vaQuerySurfaceError: one covering the concealed macroblocks when there are
    /// any, then the terminator (status -1).
    func decodeErrorRecords(macroblocks: Int) -> UnsafeMutablePointer<VASurfaceDecodeMBErrors> {
        let records = errorRecords ?? UnsafeMutablePointer<VASurfaceDecodeMBErrors>.allocate(capacity: 2)
        errorRecords = records
        records.initialize(repeating: VASurfaceDecodeMBErrors(), count: 2)
        var next = 0
        if concealedMacroblocks > 0 {
            records[0].status = 1
            records[0].start_mb = 0
            records[0].end_mb = UInt32(max(macroblocks - 1, 0))
            records[0].decode_error_type = VADecodeMBError
            records[0].num_mb = UInt32(concealedMacroblocks)
            next = 1
        }
        records[next].status = -1
        return records
    }

    var lumaOffset: Int { 0 }
    var chromaOffset: Int { pitch * allocatedHeight }
    var luma: UnsafeMutablePointer<UInt8> { memory.base.assumingMemoryBound(to: UInt8.self) }
    var chroma: UnsafeMutablePointer<UInt8> { (memory.base + chromaOffset).assumingMemoryBound(to: UInt8.self) }
}
