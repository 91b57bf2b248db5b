/// The NAL units of one RTP timestamp (one access unit: RFC 6184 5.1, RFC 7798 4.1), with what was lost around it.
public struct ReceivedFrame: Sendable {
    public var timestamp: UInt32
    public var nalUnits: [[UInt8]] = []
    /// Packets of this frame were lost or unusable (inside it, or its end).
    public var damaged = false
    /// Packets were lost just before its first packet: they may have been its beginning, or whole frames.
    public var lossBefore = false
    /// The marker bit ended it (rather than a new timestamp or the end of the stream).
    public var complete = false
    public var firstArrival: Double
    public var problems: [RTPError] = []
    /// The RTP sequence number of its first packet received.
    public var firstSequence: UInt16 = 0
}

/// Depacketises packets released in order by the jitter buffer and groups NAL units into frames by RTP
/// timestamp; the marker bit, or a new timestamp, ends a frame.
public struct FrameReceiver<Format: NALPayloadFormat>: Sendable {
    private var depacketizer = NALUnitDepacketizer<Format>()
    private var current: ReceivedFrame?
    private var started = false

    public init() {}

    /// Adds one released packet; returns the frames it completed.
    public mutating func push(_ released: JitterBuffer.Released) -> [ReceivedFrame] {
        var done: [ReceivedFrame] = []
        let packet = released.packet
        let gap = released.lostBefore > 0
        if gap, var open = current {
            // The frame in progress lost its middle or its end.
            open.damaged = true
            current = open
        }
        if let open = current, open.timestamp != packet.timestamp {
            done.append(open)
            current = nil
        }
        if current == nil {
            current = ReceivedFrame(timestamp: packet.timestamp, lossBefore: gap, firstArrival: released.arrival, firstSequence: packet.sequenceNumber)
        }
        let output = depacketizer.push(packet.payload, sequenceNumber: packet.sequenceNumber, continuous: started && !gap)
        started = true
        if var frame = current {
            frame.nalUnits += output.nalUnits
            if !output.problems.isEmpty {
                frame.problems += output.problems
                frame.damaged = true
            }
            if packet.marker {
                frame.complete = true
                if depacketizer.hasOpenFragment {
                    frame.problems += depacketizer.finish()
                    frame.damaged = true
                }
                done.append(frame)
                current = nil
            } else {
                current = frame
            }
        }
        return done
    }

    /// The frame still open at the end of the stream.
    public mutating func finish() -> [ReceivedFrame] {
        guard var frame = current else { return [] }
        current = nil
        let problems = depacketizer.finish()
        if !problems.isEmpty { frame.problems += problems; frame.damaged = true }
        return [frame]
    }
}

public typealias H264FrameReceiver = FrameReceiver<H264PayloadFormat>
public typealias H265FrameReceiver = FrameReceiver<H265PayloadFormat>
