import CLibVA

/// vtksoft's H.265 engine behind the VA session (``HEVCEncodeSession``): turns a checked picture into the
/// engine's request (headers from the parameters or the client's packed ones, reference pictures from the
/// surfaces' reconstructions) and the engine's output into the access unit and the reconstruction.
struct HEVCEngineAdapter {
    struct Coded {
        var stream: [UInt8]
        var reconstructionMD5: String?
    }

    /// `qp`: the rate controller's QP for every slice, or nil for the slice parameters' own (CQP).
    mutating func code(_ prepared: HEVCEncodeSession.Prepared, qp: Int?, violation: (String) -> Void) throws(VAError) -> Coded {
        throw VAError.unimplemented.because("no H.265 engine yet")
    }
}
