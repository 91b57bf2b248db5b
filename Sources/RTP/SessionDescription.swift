/// The SDP (RFC 8866) of one H.264 or H.265 RTP stream: where it goes, its payload type, and the fmtp
/// parameters: for H.264 (RFC 6184 8.2.1) `packetization-mode`, `profile-level-id` and
/// `sprop-parameter-sets`; for H.265 (RFC 7798 7.1, 7.2) `sprop-vps`, `sprop-sps` and `sprop-pps`.
public struct SessionDescription: Hashable, Sendable {
    /// The encoding name of the rtpmap line.
    public enum Codec: String, Hashable, Sendable {
        case h264 = "H264", h265 = "H265"
    }

    public var address: String
    public var port: Int
    public var payloadType: UInt8 = 96
    public var codec: Codec
    public var clockRate: Int = 90000
    public var packetizationMode = 1
    public var profileLevelId: String?
    /// Parameter sets from the fmtp line: SPS and PPS (H.264); VPS, SPS and PPS (H.265).
    public var parameterSets: [[UInt8]] = []

    public init(address: String, port: Int, payloadType: UInt8 = 96, codec: Codec = .h264, parameterSets: [[UInt8]] = []) {
        self.address = address
        self.port = port
        self.payloadType = payloadType
        self.codec = codec
        self.parameterSets = parameterSets
        // 8.1: profile_idc, the constraint flags byte and level_idc of the SPS, in hex.
        if codec == .h264, let sps = parameterSets.first(where: { $0.count >= 4 && $0[0] & 0x1F == 7 }) {
            profileLevelId = sps[1...3].map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
        }
    }

    /// RFC 7798 7.1: the sprop parameters of H.265 and the NAL unit type each carries.
    static let h265ParameterSetTypes: [(name: String, type: UInt8)] = [("sprop-vps", 32), ("sprop-sps", 33), ("sprop-pps", 34)]

    var formatParameters: String {
        switch codec {
        case .h264:
            var fmtp = "packetization-mode=\(packetizationMode)"
            if let profileLevelId { fmtp += "; profile-level-id=\(profileLevelId)" }
            if !parameterSets.isEmpty { fmtp += "; sprop-parameter-sets=" + parameterSets.map(Base64.encode).joined(separator: ",") }
            return fmtp
        case .h265:
            return Self.h265ParameterSetTypes.compactMap { name, type in
                let sets = parameterSets.filter { H265PayloadFormat.nalUnitType($0) == type }
                return sets.isEmpty ? nil : "\(name)=" + sets.map(Base64.encode).joined(separator: ",")
            }.joined(separator: "; ")
        }
    }

    public var text: String {
        let family = address.contains(":") ? "IP6" : "IP4"
        let fmtp = formatParameters
        return """
            v=0
            o=- 0 0 IN \(family) \(address)
            s=vtk
            c=IN \(family) \(address)
            t=0 0
            m=video \(port) RTP/AVP \(payloadType)
            a=rtpmap:\(payloadType) \(codec.rawValue)/\(clockRate)

            """ + (fmtp.isEmpty ? "" : "a=fmtp:\(payloadType) \(fmtp)\n")
    }

    /// Reads the first video stream; refuses what vtk cannot receive, naming the line.
    public static func parse(_ text: String) throws(RTPError) -> SessionDescription {
        var address: String?
        var media: (port: Int, payloadTypes: [Int], line: Int)?
        var rtpmaps: [Int: (String, Int)] = [:]
        var fmtps: [Int: [String: String]] = [:]
        var sawVersion = false
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0.isNewline }).enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            let number = index + 1
            guard !line.isEmpty else { continue }
            guard line.count >= 2, line.dropFirst().first == "=" else { throw .sdp(line: number, reason: "'\(line.prefix(40))' is not TYPE=VALUE") }
            let value = String(line.dropFirst(2))
            switch line.first {
            case "v": sawVersion = true
            case "c":
                let parts = value.split(separator: " ")
                guard parts.count >= 3, parts[0] == "IN" else { throw .sdp(line: number, reason: "connection '\(value)' is not 'IN IP4|IP6 ADDRESS'") }
                // A multicast address may carry /ttl; vtk binds the port on every interface anyway.
                let host = String(parts[2].split(separator: "/").first ?? "")
                if media == nil || address == nil { address = host }
            case "m":
                guard media == nil else { continue }  // only the first stream
                let parts = value.split(separator: " ")
                guard parts.count >= 4 else { throw .sdp(line: number, reason: "media line '\(value)' has fewer than 4 fields") }
                guard parts[0] == "video" else { throw .sdp(line: number, reason: "the first stream is \(parts[0]), not video") }
                guard parts[2].hasPrefix("RTP/AVP") else { throw .sdp(line: number, reason: "transport \(parts[2]) is not RTP/AVP") }
                guard let port = Int(parts[1].split(separator: "/").first ?? ""), (1...65535).contains(port) else {
                    throw .sdp(line: number, reason: "port '\(parts[1])' is not 1-65535")
                }
                media = (port, parts[3...].compactMap { Int($0) }, number)
            case "a" where media != nil:
                if value.hasPrefix("rtpmap:") {
                    let parts = value.dropFirst(7).split(separator: " ", maxSplits: 1)
                    guard parts.count == 2, let pt = Int(parts[0]) else { throw .sdp(line: number, reason: "rtpmap '\(value)' is not 'PT NAME/RATE'") }
                    let codec = parts[1].split(separator: "/")
                    rtpmaps[pt] = (String(codec.first ?? "").uppercased(), codec.count > 1 ? Int(codec[1]) ?? 0 : 0)
                } else if value.hasPrefix("fmtp:") {
                    let parts = value.dropFirst(5).split(separator: " ", maxSplits: 1)
                    guard parts.count == 2, let pt = Int(parts[0]) else { throw .sdp(line: number, reason: "fmtp '\(value)' is not 'PT PARAMETERS'") }
                    var parameters: [String: String] = [:]
                    for item in parts[1].split(separator: ";") {
                        let pair = item.split(separator: "=", maxSplits: 1)
                        if pair.count == 2 { parameters[pair[0].trimmingSpaces.lowercased()] = pair[1].trimmingSpaces }
                    }
                    fmtps[pt] = parameters
                }
            default: break
            }
        }
        guard sawVersion else { throw .sdp(line: 0, reason: "no v= line: this is not an SDP") }
        guard let media else { throw .sdp(line: 0, reason: "no m=video line") }
        guard let pt = media.payloadTypes.first(where: { rtpmaps[$0].flatMap { Codec(rawValue: $0.0) } != nil }),
              let codec = rtpmaps[pt].flatMap({ Codec(rawValue: $0.0) }) else {
            throw .sdp(line: media.line, reason: "no H264 or H265 payload type among \(media.payloadTypes)")
        }
        var description = SessionDescription(address: address ?? "0.0.0.0", port: media.port, payloadType: UInt8(pt), codec: codec)
        description.clockRate = rtpmaps[pt]?.1 ?? 90000
        guard description.clockRate == 90000 else {
            throw .sdp(line: 0, reason: "\(codec.rawValue) clock rate \(description.clockRate), not 90000 (RFC 6184 8.2.1, RFC 7798 7.1)")
        }
        let parameters = fmtps[pt] ?? [:]
        func base64List(_ name: String) throws(RTPError) -> [[UInt8]] {
            var sets: [[UInt8]] = []
            for item in (parameters[name] ?? "").split(separator: ",") {
                guard let bytes = Base64.decode(String(item)), !bytes.isEmpty else {
                    throw .sdp(line: 0, reason: "\(name) item '\(item.prefix(40))' is not base64")
                }
                sets.append(bytes)
            }
            return sets
        }
        switch codec {
        case .h264:
            if let mode = parameters["packetization-mode"] {
                guard let value = Int(mode), value == 0 || value == 1 else {
                    throw .sdp(line: 0, reason: "packetization-mode \(mode): vtk receives modes 0 and 1 (interleaved mode 2 is not supported)")
                }
                description.packetizationMode = value
            } else {
                description.packetizationMode = 0
            }
            description.profileLevelId = parameters["profile-level-id"]
            description.parameterSets = try base64List("sprop-parameter-sets")
        case .h265:
            // 7.1: a sprop-max-don-diff above 0 puts DONL fields in APs and FUs, which vtk does not read.
            if let diff = parameters["sprop-max-don-diff"], diff != "0" {
                throw .sdp(line: 0, reason: "sprop-max-don-diff \(diff): decoding order numbers (DONL, RFC 7798 4.4) are not supported")
            }
            for (name, type) in h265ParameterSetTypes {
                let sets = try base64List(name)
                if let wrong = sets.first(where: { $0.count < 2 || H265PayloadFormat.nalUnitType($0) != type }) {
                    throw .sdp(line: 0, reason: "\(name) holds a NAL unit of type \(wrong.count < 2 ? 0 : H265PayloadFormat.nalUnitType(wrong)), not \(type)")
                }
                description.parameterSets += sets
            }
        }
        return description
    }
}

extension Substring {
    var trimmingSpaces: String { String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()) }
}

/// RFC 4648 base64, as sprop-parameter-sets carries NAL units.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = bytes[i], b1 = n > 1 ? bytes[i + 1] : 0, b2 = n > 2 ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(n > 1 ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(n > 2 ? alphabet[Int(b2 & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for c in text.utf8 where c != UInt8(ascii: "=") {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt8(v))
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i + 1 < values.count {
            out.append(values[i] << 2 | values[i + 1] >> 4)
            if i + 2 < values.count { out.append(values[i + 1] << 4 | values[i + 2] >> 2) }
            if i + 3 < values.count { out.append(values[i + 2] << 6 | values[i + 3]) }
            i += 4
        }
        return out
    }
}
