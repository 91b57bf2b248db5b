/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2 W<w> H<h> F<n>:<d> I<i> A<n>:<d> C<cs> X<ext>...`.
public struct Y4MHeader: Hashable, Sendable, CustomStringConvertible {
    /// A ratio as Y4M writes it; 0:0 means unknown.
    public struct Ratio: Hashable, Sendable, CustomStringConvertible {
        public var numerator: Int
        public var denominator: Int
        public init(_ numerator: Int, _ denominator: Int) { self.numerator = numerator; self.denominator = denominator }
        public var description: String { "\(numerator):\(denominator)" }
        public static let unknown = Ratio(0, 0)
    }

    /// The 8-bit 4:2:0 layouts; they differ only in where chroma samples sit, the bytes are the same.
    public enum Colorspace: String, Hashable, Sendable, CaseIterable {
        case c420jpeg = "420jpeg"
        case c420paldv = "420paldv"
        case c420mpeg2 = "420mpeg2"
        case c420 = "420"
        /// 10-bit 4:2:0: 16-bit little-endian samples (H.265 Main 10 output, and input to encode it).
        case c420p10 = "420p10"

        /// The layouts vtk reads: the 8-bit ones and C420p10.
        public static var allCases: [Colorspace] { [.c420jpeg, .c420paldv, .c420mpeg2, .c420, .c420p10] }

        public var bytesPerSample: Int { self == .c420p10 ? 2 : 1 }
    }

    public enum Interlace: String, Hashable, Sendable {
        case progressive = "p"
        case topFieldFirst = "t"
        case bottomFieldFirst = "b"
        case mixed = "m"
        case unknown = "?"
    }

    public var width: Int
    public var height: Int
    public var frameRate: Ratio
    public var sampleAspectRatio: Ratio
    public var interlace: Interlace
    public var colorspace: Colorspace
    /// `X` parameters in order, without the `X` (e.g. `YSCSS=420JPEG`), kept so a copy can carry them.
    public var extensions: [String]
    /// Whether the file named a colorspace (when not, it is 4:2:0 JPEG by default and the writer leaves C out).
    public var colorspaceGiven: Bool = true

    public init(width: Int, height: Int, frameRate: Ratio, sampleAspectRatio: Ratio = Ratio(1, 1),
                interlace: Interlace = .progressive, colorspace: Colorspace = .c420jpeg, extensions: [String] = []) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sampleAspectRatio = sampleAspectRatio
        self.interlace = interlace
        self.colorspace = colorspace
        self.extensions = extensions
    }

    /// Largest width or height accepted, so that a header cannot ask for absurd frame buffers: the
    /// largest picture H.264 (and `vtk encode --size`) allows, 16384 per side.
    public static let maximumDimension = 16384

    /// Bytes of one frame's pixels (Y, then U and V at half size rounded up).
    public var frameSize: Int { (width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)) * colorspace.bytesPerSample }

    static let signature = Array("YUV4MPEG2".utf8)

    /// Parses the header line (without its newline). `byteOffset` is where the line starts in the stream.
    public init(line: [UInt8], byteOffset: Int = 0) throws(Y4MError) {
        guard line.starts(with: Self.signature), line.count == Self.signature.count || line[Self.signature.count] == 0x20 else {
            throw .notY4M(byteOffset: byteOffset)
        }
        var width: Int?, height: Int?
        var rate = Ratio(25, 1)  // FFmpeg's and mjpegtools' default when F is absent
        var aspect = Ratio.unknown
        var interlace = Interlace.progressive
        var colorspace = Colorspace.c420jpeg
        var colorspaceGiven = false
        var extensions: [String] = []
        var position = Self.signature.count
        for token in line[Self.signature.count...].split(separator: 0x20, omittingEmptySubsequences: true) {
            let at = byteOffset + token.startIndex
            defer { position = token.endIndex }
            guard let key = token.first else { continue }
            let value = String(decoding: token.dropFirst(), as: UTF8.self)
            let name = String(UnicodeScalar(key))
            func bad() -> Y4MError { .badParameter(name: name, value: value, byteOffset: at) }
            switch key {
            case UInt8(ascii: "W"):
                guard let v = Int(value), v > 0, v <= Self.maximumDimension else { throw bad() }
                width = v
            case UInt8(ascii: "H"):
                guard let v = Int(value), v > 0, v <= Self.maximumDimension else { throw bad() }
                height = v
            case UInt8(ascii: "F"):
                guard let r = Self.ratio(value), r.numerator > 0, r.denominator > 0 else { throw bad() }
                rate = r
            case UInt8(ascii: "A"):
                guard let r = Self.ratio(value), r.numerator >= 0, r.denominator >= 0 else { throw bad() }
                aspect = r
            case UInt8(ascii: "I"):
                guard let v = Interlace(rawValue: value) else { throw bad() }
                interlace = v
            case UInt8(ascii: "C"):
                guard let v = Colorspace(rawValue: value) else { throw .unsupportedColorspace(value) }
                colorspace = v
                colorspaceGiven = true
            case UInt8(ascii: "X"):
                extensions.append(value)
            default:
                break  // unknown parameters are ignored, as the format asks
            }
        }
        _ = position
        guard let width else { throw .badParameter(name: "W", value: "(missing)", byteOffset: byteOffset) }
        guard let height else { throw .badParameter(name: "H", value: "(missing)", byteOffset: byteOffset) }
        self.init(width: width, height: height, frameRate: rate, sampleAspectRatio: aspect, interlace: interlace,
                  colorspace: colorspace, extensions: extensions)
        self.colorspaceGiven = colorspaceGiven
    }

    private static func ratio(_ text: String) -> Ratio? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]),
              (0...Int(Int32.max)).contains(n), (0...Int(Int32.max)).contains(d) else { return nil }
        return Ratio(n, d)
    }

    /// The header line with its newline, parameters in the order FFmpeg writes them.
    public var line: String {
        var parts = ["YUV4MPEG2", "W\(width)", "H\(height)", "F\(frameRate)", "I\(interlace.rawValue)", "A\(sampleAspectRatio)"]
        if colorspaceGiven { parts.append("C\(colorspace.rawValue)") }
        parts += extensions.map { "X" + $0 }
        return parts.joined(separator: " ") + "\n"
    }

    public var description: String { String(line.dropLast()) }
}
