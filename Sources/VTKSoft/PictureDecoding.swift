import CLibVA

/// The codec half of a decode context: turns one picture's rendered buffers into pixels in the target, in
/// two parts as hardware does: checked and built at vaEndPicture, decoded later on the display's worker.
protocol PictureDecoding: AnyObject {
    /// Checks the buffers (vaEndPicture's status) and builds the access unit; `violations` gets the
    /// parameters that contradict the slice data (see ``ParameterViolation``).
    func prepare(_ buffers: [RenderedBuffer], for surface: Surface, contextWidth: Int, contextHeight: Int,
                 violations: inout [ParameterViolation]) throws(VAError) -> PreparedAccessUnit
    /// Decodes a prepared access unit into `surface` (on the worker; what it throws is vaSyncSurface's status).
    func decode(_ unit: PreparedAccessUnit, into surface: Surface) throws(VAError)
}
