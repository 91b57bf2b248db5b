import DecompressionSession
/// Sends an Annex B stream as it is read: access units in decoding order, paced by decoding time and stamped
/// with their display time (RFC 6184 5.1, RFC 7798 4.1), at `frameRate`, else the stream's VUI rate, else 25.
public struct AnnexBTransmission: RTPCodecWork {
    public enum Result: Sendable {
        /// The stream held no picture: nothing was described or sent.
        case noPictures
        /// `describe` asked to stop: nothing was sent.
        case describedOnly
        /// Sent up to the end, the frame limit, or a stop request.
        case sent
    }

    let read: () throws -> [UInt8]
    let sender: RTPSender
    let frameRate: Double?
    let frameLimit: Int?
    let shouldStop: () -> Bool
    let describe: ([[UInt8]]) throws -> Bool

    /// - Parameters:
    ///   - read: the next chunk of the stream; empty at its end.
    ///   - frameLimit: send at most this many pictures.
    ///   - shouldStop: asked before each access unit.
    ///   - describe: given the first picture's parameter sets before anything is sent; false ends there.
    public init(read: @escaping () throws -> [UInt8], sender: RTPSender, frameRate: Double?, frameLimit: Int?,
                shouldStop: @escaping () -> Bool, describe: @escaping ([[UInt8]]) throws -> Bool) {
        self.read = read
        self.sender = sender
        self.frameRate = frameRate
        self.frameLimit = frameLimit
        self.shouldStop = shouldStop
        self.describe = describe
    }

    public func run<Codec: RTPCodec>(_ codec: Codec.Type) throws -> Result {
        var queue = AnnexBSendQueue<Codec>()
        var described = false
        var stoppedAtDescription = false
        var index = 0
        var rate = 25.0
        /// False once nothing more is to be sent.
        func send(_ units: [AnnexBSendQueue<Codec>.Unit]) throws -> Bool {
            if !units.isEmpty, !described {
                described = true
                rate = frameRate ?? queue.frameRate ?? 25
                guard try describe(queue.parameterSets) else { stoppedAtDescription = true; return false }
            }
            for unit in units {
                guard frameLimit.map({ index < $0 }) ?? true, !shouldStop() else { return false }
                // Paced in decoding order; stamped with the sampling (display) time.
                let shown = unit.hasPicture ? unit.displayPosition ?? index : index
                try sender.send(unit.nalUnits, ticks: Int64((Double(shown) * 90000 / rate).rounded()), due: Int64((Double(index) * 90000 / rate).rounded()))
                if unit.hasPicture { index += 1 }
            }
            return true
        }
        var more = true
        while more {
            let chunk = try read()
            if chunk.isEmpty { break }
            more = try send(queue.append(chunk))
        }
        if more { more = try send(queue.finish()) }
        if !queue.sawPicture { return .noPictures }
        return stoppedAtDescription ? .describedOnly : .sent
    }
}
