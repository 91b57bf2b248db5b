import H264Encoding
import JSONText

/// What both native encode sessions (H.264 and H.265) do around their engine for one picture: the rate
/// controller follows the client's parameters and gives the QP (without rate control, the client's own QP is
/// coded); a picture that breaks the rate controller's window or MaxFrameSize is coded again at a new QP, up to
/// 4 passes; then the outcome is recorded and described for the capture line.
struct RateControlledCoding {
    private(set) var controller: RateController?

    /// One picture's outcome.
    struct Outcome<Coded> {
        var coded: Coded
        var stream: [UInt8]
        var qp: Int
        var passes: Int
    }

    /// Codes one picture: `code` is given the QP to code at (nil: the client's, no rate control) and returns
    /// what it coded with the access unit's bytes.
    mutating func code<Coded>(kind: RateController.PictureKind, parameters: RateController.Parameters?, clientQP: Int, maxFrameSize: Int?,
                              _ code: (Int?) throws(VAError) -> (coded: Coded, stream: [UInt8])) throws(VAError) -> Outcome<Coded> {
        if let parameters {
            if controller == nil { controller = RateController(parameters) } else { controller?.update(parameters) }
        }
        var qp = controller?.qp(for: kind) ?? clientQP
        var passes = 0
        while true {
            passes += 1
            let (coded, stream) = try code(controller == nil ? nil : qp)
            if let rc = controller, passes < 4, let retry = rc.retryQP(bits: 8 * stream.count, qp: qp, maxFrameSize: maxFrameSize) {
                qp = retry
                continue
            }
            controller?.record(bits: 8 * stream.count, qp: qp, kind: kind)
            return Outcome(coded: coded, stream: stream, qp: qp, passes: passes)
        }
    }

    /// The capture line's "encode" fields: the engine, QP, passes, bytes, the reconstruction's MD5 when asked,
    /// the violations and the rate controller's buffer fullness.
    func captured(engine: String, outcome: Outcome<some Any>, reconstructionMD5: String?, violations: [String]) -> [(String, JSONValue)] {
        var captured: [(String, JSONValue)] = [
            ("engine", .string(engine)),
            ("qp", .int(outcome.qp)),
            ("passes", .int(outcome.passes)),
            ("coded_bytes", .int(outcome.stream.count)),
        ]
        if let reconstructionMD5 { captured.append(("reconstruction_md5", .string(reconstructionMD5))) }
        captured.append(("violations", .array(violations.map { .string($0) })))
        if let rc = controller { captured.append(("buffer_fullness", .int(Int(rc.bufferFullness)))) }
        return captured
    }
}
