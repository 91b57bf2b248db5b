import Glibc
import VTKMedia

/// `VTKSOFT_FAIL_PICTURE=N[,M...]`: the decode pictures numbered N, M (from 0, in the order the worker decodes
/// them, counted over the process) come out as if the engine had concealed damage in every macroblock:
/// vaSyncSurface answers VA_STATUS_ERROR_DECODING_ERROR and vaQuerySurfaceError describes the blocks. For
/// tests of how clients flag damaged pictures, for codecs whose libavcodec decoder conceals damage silently
/// (HEVC in libavcodec 5.1 sets no decode_error_flags).
enum DecodeFaultInjection {
    private static let failing: Set<Int> = {
        guard let text = getenv("VTKSOFT_FAIL_PICTURE") else { return [] }
        return Set(String(cString: text).split(separator: ",").compactMap { Int($0) })
    }()
    private static let decoded = Locked(0)

    /// Called once per decode picture, after the engine decoded it into `surface`.
    static func pictureDecoded(into surface: Surface) {
        guard !failing.isEmpty else { return }
        let index = decoded.withLock { count in
            defer { count += 1 }
            return count
        }
        if failing.contains(index) { surface.concealedMacroblocks = max(1, (surface.width / 16) * (surface.height / 16)) }
    }
}
