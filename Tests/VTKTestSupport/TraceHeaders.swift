import Foundation

/// FFmpeg's `trace_headers` bitstream filter output, parsed into NAL-unit records: a third-party oracle
/// for the H.264 header parsers.
///
/// FFmpeg prints one line per syntax element, `<bit position>  <name>  <bits> = <value>`, where the bit
/// position counts from the first bit of the NAL unit header in the RBSP (emulation prevention removed).
/// Section titles ("Sequence Parameter Set", "Recovery Point", ...) and `Packet: N bytes...` lines come
/// between them; an `Extradata` section first repeats the stream's SPS and PPS.
public struct TraceHeaders: Sendable {
    public enum Kind: Sendable, Equatable { case sps, pps, slice, sei, other }

    public struct Element: Sendable, Equatable, CustomStringConvertible {
        public var bitPosition: Int
        public var name: String
        public var value: Int64
        public var bitLength: Int
        public var description: String { "\(name) = \(value) @\(bitPosition)+\(bitLength)" }
    }

    /// One NAL unit as FFmpeg traced it.
    public struct NALRecord: Sendable {
        public var kind: Kind
        public var nalUnitType: Int
        /// Section titles printed for it (the NAL unit's, then any sub-structure's, such as SEI payloads).
        public var titles: [String]
        public var elements: [Element]
        /// True for the NAL units of the Extradata section (copies of the stream's first SPS/PPS).
        public var inExtradata: Bool
    }

    public var records: [NALRecord] = []
    /// Number of `Packet:` sections: FFmpeg's h264 parser makes one packet per access unit.
    public var packetCount = 0

    /// The NAL units of the stream itself, in stream order (Extradata left out).
    public var streamRecords: [NALRecord] { records.filter { !$0.inExtradata } }

    public init(parsing text: String) {
        var inExtradata = false
        var pendingTitles: [String] = []
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            // Only the filter's own lines; the tag can follow other output on the same line.
            guard let tag = rawLine.range(of: "[trace_headers @ "),
                  let close = rawLine[tag.upperBound...].firstIndex(of: "]") else { continue }
            let line = rawLine[rawLine.index(after: close)...].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("Packet:") {
                packetCount += 1
                inExtradata = false
                pendingTitles = []
            } else if line == "Extradata" {
                inExtradata = true
                pendingTitles = []
            } else if let element = Self.element(line) {
                // Every NAL unit's trace starts with its header's forbidden_zero_bit at position 0.
                if element.bitPosition == 0 && element.name == "forbidden_zero_bit" || records.isEmpty {
                    records.append(NALRecord(kind: .other, nalUnitType: -1, titles: pendingTitles, elements: [], inExtradata: inExtradata))
                } else if !pendingTitles.isEmpty {
                    records[records.count - 1].titles += pendingTitles
                }
                pendingTitles = []
                let last = records.count - 1
                records[last].elements.append(element)
                if element.name == "nal_unit_type" {
                    records[last].nalUnitType = Int(element.value)
                    records[last].kind = switch element.value {
                    case 7: .sps
                    case 8: .pps
                    case 1, 5: .slice
                    case 6: .sei
                    default: .other
                    }
                }
            } else if !line.isEmpty {
                pendingTitles.append(line)
            }
        }
    }

    /// `33          log2_max_frame_num_minus4                               00101 = 4`
    static func element(_ line: String) -> Element? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 4 || parts.count == 5, parts[parts.count - 2] == "=",
              let position = Int(parts[0]), let value = Int64(parts[parts.count - 1]) else { return nil }
        let bits = parts.count == 5 ? parts[2] : ""
        guard bits.allSatisfy({ $0 == "0" || $0 == "1" }) else { return nil }
        return Element(bitPosition: position, name: String(parts[1]), value: value, bitLength: bits.count)
    }

    /// Runs `ffmpeg -i <url> -c copy -bsf:v trace_headers -f null -` and parses its standard error.
    public static func run(_ url: URL) throws -> TraceHeaders {
        let result = try ProcessRunner.run("ffmpeg", ["-hide_banner", "-nostats", "-i", url.path,
                                                      "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        guard result.status == 0 else { throw TraceHeadersError.ffmpegFailed(url.lastPathComponent, result.stderrText) }
        return TraceHeaders(parsing: result.stderrText)
    }
}

public enum TraceHeadersError: Error, CustomStringConvertible {
    case ffmpegFailed(String, String)
    public var description: String {
        switch self { case let .ffmpegFailed(name, message): "ffmpeg trace_headers failed on \(name): \(message.suffix(2000))" }
    }
}
