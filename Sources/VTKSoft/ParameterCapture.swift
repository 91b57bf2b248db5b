import JSONText
import CLibVA
import Glibc

/// With VTKSOFT_CAPTURE=FILE, appends one JSON line per picture (once the worker has done it) with every field of
/// the parameter buffers the client rendered, so what two VA clients send can be compared.
final class ParameterCapture {
    private let path: String
    private var pictureIndex = 0
    /// VTKSOFT_CAPTURE_CALLS=1: the calls that move pixels between surfaces and the client are captured too.
    private let capturesCalls: Bool

    private init(path: String, capturesCalls: Bool) {
        self.path = path
        self.capturesCalls = capturesCalls
    }

    static func fromEnvironment() -> ParameterCapture? {
        guard let value = getenv("VTKSOFT_CAPTURE"), value.pointee != 0 else { return nil }
        let calls = getenv("VTKSOFT_CAPTURE_CALLS").map { String(cString: $0) == "1" } ?? false
        return ParameterCapture(path: String(cString: value), capturesCalls: calls)
    }

    /// With VTKSOFT_CAPTURE_CALLS=1, one line for a call that copies a picture between a surface and an image
    /// (vaDeriveImage, vaGetImage, vaPutImage) or draws one (vaPutSurface): {"call": NAME, "surface": ID}. A
    /// test counts them to see that a client moves no picture through the CPU.
    func record(call: String, surface: VASurfaceID) {
        guard capturesCalls else { return }
        append(JSONValue.object([("call", .string(call)), ("surface", .int(Int(surface)))]).text + "\n")
    }

    private func append(_ line: String) {
        // Opened per line, appended: several displays (or processes) may share the file.
        guard let file = fopen(path, "a") else { return }
        fputs(line, file)
        fclose(file)
    }

    /// `encode`: what the native encoder did with the picture (QP, violations, reconstruction MD5), as an
    /// "encode" object; left out when empty. `violations` is nil for encode pictures; for decode pictures
    /// the line lists them ("violations": [] when the parameters agree with the slice data).
    func record(context: VAContextID, surface: VASurfaceID, entrypoint: VAEntrypoint, buffers: [RenderedBuffer],
                encode: [(String, JSONValue)] = [], violations: [ParameterViolation]? = nil, hevc: Bool = false) {
        var fields: [(String, JSONValue)] = [
            ("picture", .int(pictureIndex)),
            ("context", .int(Int(context))),
            ("render_target", .int(Int(surface))),
            ("entrypoint", .string(String(cString: vaEntrypointStr(entrypoint)))),
            ("buffers", .array(buffers.map { Self.describe($0, fields: Self.fields(hevc: hevc, entrypoint: entrypoint)) })),
        ]
        if !encode.isEmpty { fields.append(("encode", .object(encode))) }
        if let violations { fields.append(("violations", .array(violations.map(\.json)))) }
        let line = JSONValue.object(fields).text + "\n"
        pictureIndex += 1
        append(line)
    }

    /// A rendered buffer's entry: its type, count and size, then what it holds, as the codec's struct or as one
    /// of the codec-neutral encode buffers.
    /// The struct fields of a picture's buffers: H.264 (decode and encode), H.265 decode, H.265 encode.
    static func fields(hevc: Bool, entrypoint: VAEntrypoint) -> any CodecCaptureFields.Type {
        guard hevc else { return CaptureFields.self }
        return entrypoint == VAEntrypointVLD ? HEVCCaptureFields.self : HEVCEncodeCaptureFields.self
    }

    static func describe(_ buffer: RenderedBuffer, fields codec: any CodecCaptureFields.Type) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string(String(cString: vaBufferTypeStr(buffer.type)))),
            ("num_elements", .int(buffer.elementCount)),
            ("size", .int(buffer.elementSize)),
        ]
        if let value = codec.value(of: buffer) {
            fields.append(("value", value))
            return .object(fields)
        }
        switch buffer.type {
        case VAEncMiscParameterBufferType:
            fields.append(("value", CaptureFields.misc(buffer.bytes)))
        case VAEncPackedHeaderParameterBufferType:
            fields.append(("value", CaptureFields.packedHeader(buffer.element(as: VAEncPackedHeaderParameterBuffer.self))))
        case VAEncPackedHeaderDataBufferType:
            // The client's header bytes, so tests can compare them with the stream.
            fields.append(("data", .string(buffer.bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined())))
        default:
            break  // Slice data: its size says enough; the bytes are the client's bitstream.
        }
        return .object(fields)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// One picture's VTKSOFT_CAPTURE line, filled in as the picture goes (decode violations at vaEndPicture, the
/// encoder's outcome on the worker) and written by the worker, so lines stay in picture order.
final class CapturedPicture {
    private let capture: ParameterCapture?
    private let context: VAContextID
    private let surface: VASurfaceID
    private let entrypoint: VAEntrypoint
    private let buffers: [RenderedBuffer]
    private let hevc: Bool
    /// Decode pictures: the parameters that contradict the slice data (nil for encode pictures).
    var violations: [ParameterViolation]?
    /// Encode pictures: what the native encoder did.
    var encode: [(String, JSONValue)] = []
    /// Whether the line is written at all (VTKSOFT_CAPTURE set): what only the line needs is skipped otherwise.
    var isRecorded: Bool { capture != nil }

    init(capture: ParameterCapture?, context: VAContextID, surface: VASurfaceID, entrypoint: VAEntrypoint,
         buffers: [RenderedBuffer], hevc: Bool) {
        self.capture = capture
        self.context = context
        self.surface = surface
        self.entrypoint = entrypoint
        self.buffers = buffers
        self.hevc = hevc
        violations = entrypoint == VAEntrypointVLD ? [] : nil
    }

    func record() {
        capture?.record(context: context, surface: surface, entrypoint: entrypoint, buffers: buffers, encode: encode,
                        violations: violations, hevc: hevc)
    }

    /// The line of a picture refused or failed: encode lines say the status and why.
    func record(failure error: VAError) {
        if violations == nil {
            encode.append(("status", .string(String(cString: vaErrorStr(error.status)))))
            if let reason = error.reason { encode.append(("reason", .string(reason))) }
        }
        record()
    }
}
