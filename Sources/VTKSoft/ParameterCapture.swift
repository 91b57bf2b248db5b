import JSONText
import CLibVA
import Glibc

/// With VTKSOFT_CAPTURE=FILE, appends one JSON line per picture (once the worker has done it) with every field of
/// the parameter buffers the client rendered, so what two VA clients send can be compared.
final class ParameterCapture {
    private let path: String
    private var pictureIndex = 0

    private init(path: String) { self.path = path }

    static func fromEnvironment() -> ParameterCapture? {
        guard let value = getenv("VTKSOFT_CAPTURE"), value.pointee != 0 else { return nil }
        return ParameterCapture(path: String(cString: value))
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
            ("buffers", .array(buffers.map { buffer in
                guard hevc else { return Self.describe(buffer) }
                return entrypoint == VAEntrypointVLD ? HEVCCaptureFields.describe(buffer) : HEVCEncodeCaptureFields.describe(buffer)
            })),
        ]
        if !encode.isEmpty { fields.append(("encode", .object(encode))) }
        if let violations { fields.append(("violations", .array(violations.map(\.json)))) }
        let line = JSONValue.object(fields).text + "\n"
        pictureIndex += 1
        // Opened per line, appended: several displays (or processes) may share the file.
        guard let file = fopen(path, "a") else { return }
        fputs(line, file)
        fclose(file)
    }

    static func describe(_ buffer: RenderedBuffer) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string(String(cString: vaBufferTypeStr(buffer.type)))),
            ("num_elements", .int(buffer.elementCount)),
            ("size", .int(buffer.elementSize)),
        ]
        let elements = 0..<buffer.elementCount
        switch buffer.type {
        case VAPictureParameterBufferType:
            fields.append(("value", CaptureFields.picture(buffer.element(as: VAPictureParameterBufferH264.self))))
        case VAIQMatrixBufferType:
            fields.append(("value", CaptureFields.iqMatrix(buffer.element(as: VAIQMatrixBufferH264.self))))
        case VASliceParameterBufferType:
            fields.append(("value", .array(elements.map { CaptureFields.slice(buffer.element($0, as: VASliceParameterBufferH264.self)) })))
        case VAEncSequenceParameterBufferType:
            fields.append(("value", CaptureFields.encodeSequence(buffer.element(as: VAEncSequenceParameterBufferH264.self))))
        case VAEncPictureParameterBufferType:
            fields.append(("value", CaptureFields.encodePicture(buffer.element(as: VAEncPictureParameterBufferH264.self))))
        case VAEncSliceParameterBufferType:
            fields.append(("value", .array(elements.map { CaptureFields.encodeSlice(buffer.element($0, as: VAEncSliceParameterBufferH264.self)) })))
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
