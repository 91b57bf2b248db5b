import CLibVA

/// What a driver says went wrong decoding into a surface (vaQuerySurfaceError, va.h): macroblocks it
/// could not decode and concealed.
public enum VASurfaceErrors {
    /// Waits for `surface` (vaSyncSurface). Returns true when the driver answered VA_STATUS_ERROR_DECODING_ERROR:
    /// the picture is there, with errors concealed (details through vaQuerySurfaceError), so it is kept and
    /// flagged, not dropped. Other failures throw.
    public static func sync(_ connection: VADisplayConnection, surface: VASurfaceID) throws(VAError) -> Bool {
        let status = vaSyncSurface(connection.display, surface)
        if status == VA_STATUS_ERROR_DECODING_ERROR { return true }
        try VAError.check(status, "vaSyncSurface(\(surface))")
        return false
    }

    /// Macroblocks in error in the picture last decoded into `surface` (0 when clean), or nil when the
    /// driver does not report errors. Call after the surface is synced.
    public static func macroblocksInError(_ connection: VADisplayConnection, surface: VASurfaceID) -> Int? {
        var info: UnsafeMutableRawPointer?
        guard vaQuerySurfaceError(connection.display, surface, VAStatus(VA_STATUS_ERROR_DECODING_ERROR), &info) == VA_STATUS_SUCCESS,
              let records = info?.assumingMemoryBound(to: VASurfaceDecodeMBErrors.self) else { return nil }
        var count = 0
        // The array ends at the record whose status is -1; a bound guards against a driver that forgets it.
        for i in 0..<4096 {
            guard records[i].status != -1 else { break }
            count += Int(records[i].num_mb)
        }
        return count
    }
}
