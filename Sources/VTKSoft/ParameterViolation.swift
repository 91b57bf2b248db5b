import CLibVA
import Glibc
import JSONText

/// A decode parameter the client sent that contradicts the slice data it sent with it: what a hardware
/// decoder, which reads the slice data where the parameters say, would decode wrongly. vtksoft still
/// decodes the picture (libavcodec reads the slice itself), so the client's mistake is reported instead:
/// in the VTKSOFT_CAPTURE line of the picture, and counted per display in the VTKSOFT_VIOLATION_REPORT
/// file written at vaTerminate (like VTKSOFT_LEAK_REPORT) and by vtksoft_display_violation_count.
struct ParameterViolation {
    /// The VA field, named as in libva's headers.
    let field: String
    /// The slice's index among the picture's slice parameters.
    let slice: Int
    let sent: Int
    let expected: Int
    let explanation: String

    var json: JSONValue {
        .object([("field", .string(field)), ("slice", .int(slice)), ("sent", .int(sent)), ("expected", .int(expected)),
                 ("explanation", .string(explanation))])
    }

    var description: String { "\(field) \(sent) in slice \(slice), expected \(expected): \(explanation)" }
}

/// The violations of one display, by field, and the first one seen.
struct ViolationTally {
    private(set) var counts: [String: Int] = [:]
    private(set) var first: ParameterViolation?

    var total: Int { counts.values.reduce(0, +) }

    mutating func add(_ violations: [ParameterViolation]) {
        for violation in violations {
            counts[violation.field, default: 0] += 1
            if first == nil { first = violation }
        }
    }

    /// At vaTerminate: a warning on standard error when there were any, and the report file: the total
    /// (decode violations of this display plus the encode violations since the driver was loaded, see
    /// ``EncodeViolations``) on the first line, then one line per decode field, "slice_data_bit_offset 3",
    /// then one line per encode violation.
    func report() {
        if let first {
            let message = "vtksoft: warning: \(total) decode parameter violation(s); first: \(first.description)\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        guard let path = getenv("VTKSOFT_VIOLATION_REPORT"), let file = fopen(path, "w") else { return }
        let fields = Set(counts.keys).union([SliceDataOffsetCheck.field]).sorted()
        let encode = EncodeViolations.messages
        fputs("\(total + encode.count)\n" + fields.map { "\($0) \(counts[$0] ?? 0)\n" }.joined(), file)
        for message in encode { fputs(message + "\n", file) }
        fclose(file)
    }
}

/// Violations found in one display so far, so that a client sharing the process with others can check its own.
/// `display` is the VADisplay (a VADisplayContextP); -1 when it is not a vtksoft display.
@_cdecl("vtksoft_display_violation_count")
public func vtksoftDisplayViolationCount(_ display: UnsafeMutableRawPointer?) -> Int32 {
    guard let dctx = display?.assumingMemoryBound(to: VADisplayContext.self),
          let ctx = dctx.pointee.pDriverContext, let raw = ctx.pointee.pDriverData else { return -1 }
    let driver = Unmanaged<Driver>.fromOpaque(raw).takeUnretainedValue()
    return Int32(driver.lock.withLock { driver.violations.total })
}
