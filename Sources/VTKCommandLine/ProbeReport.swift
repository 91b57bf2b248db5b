import DecompressionSession
import JSONText

/// What every codec's row of `vtk probe`'s table holds: a picture (an access unit), in decoding order.
struct ProbeRow {
    var decodeIndex: Int
    /// Where the picture is output; -1 until it is (never, for a picture skipped or dropped).
    var displayIndex = -1
    /// Byte offset and size of the access unit.
    var offset: Int
    var bytes: Int
    var sliceTypes: [String]
    var poc = 0
}

/// One codec's row: the common ``ProbeRow`` (its fields read as the frame's own) and the codec's columns.
@dynamicMemberLookup
protocol ProbeFrame {
    var row: ProbeRow { get set }
    /// True for a picture that starts a GOP (H.264 IDR, H.265 IRAP).
    var startsGOP: Bool { get }
}

extension ProbeFrame {
    subscript<T>(dynamicMember key: WritableKeyPath<ProbeRow, T>) -> T {
        get { row[keyPath: key] }
        set { row[keyPath: key] = newValue }
    }
}

/// One codec's part of `vtk probe`: the row of each access unit, what its decoding adds to the row, and how
/// the report reads. ``StreamProbe`` does the rest once for every codec.
protocol ProbeReport {
    associatedtype Codec: StreamDecodingCodec
    associatedtype Frame: ProbeFrame
    typealias AccessUnit = Codec.Assembler.AccessUnit
    typealias Request = Codec.Process.Request
    init()
    /// The stream's format, from the first access unit with a picture.
    var format: Codec.Format? { get }
    /// The row of access unit number `index`, or nil when it holds no picture.
    mutating func frame(for unit: AccessUnit, index: Int) -> Frame?
    /// The decoding process decodes `request` from the access unit of `frame`.
    mutating func decoded(_ request: Request, into frame: inout Frame)
    /// The report as text, or as one JSON object.
    func text(_ probe: StreamProbe<Self>.Result, format: Codec.Format) -> String
    func json(_ probe: StreamProbe<Self>.Result, format: Codec.Format) -> JSONValue
}
