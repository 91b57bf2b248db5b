/// Depacketises packets released in order by the jitter buffer and groups NAL units into access units by
/// RTP timestamp; the marker bit, or a new timestamp, ends an access unit.
public struct AccessUnitReceiver<Format: NALPayloadFormat>: Sendable {
    private var depacketizer = NALUnitDepacketizer<Format>()
    private var current: RTPAccessUnit?
    private var started = false

    public init() {}

    /// Adds one released packet; returns the access units it completed.
    public mutating func push(_ released: JitterBuffer.Released) -> [RTPAccessUnit] {
        var done: [RTPAccessUnit] = []
        let packet = released.packet
        let gap = released.lostBefore > 0
        if gap, var open = current {
            // The access unit in progress lost its middle or its end.
            open.damaged = true
            current = open
        }
        if let open = current, open.timestamp != packet.timestamp {
            done.append(open)
            current = nil
        }
        if current == nil {
            current = RTPAccessUnit(timestamp: packet.timestamp, lossBefore: gap, firstArrival: released.arrival, firstSequence: packet.sequenceNumber)
        }
        let output = depacketizer.push(packet.payload, sequenceNumber: packet.sequenceNumber, continuous: started && !gap)
        started = true
        if var unit = current {
            unit.nalUnits += output.nalUnits
            if !output.problems.isEmpty {
                unit.problems += output.problems
                unit.damaged = true
            }
            if packet.marker {
                unit.complete = true
                if depacketizer.hasOpenFragment {
                    unit.problems += depacketizer.finish()
                    unit.damaged = true
                }
                done.append(unit)
                current = nil
            } else {
                current = unit
            }
        }
        return done
    }

    /// The access unit still open at the end of the stream.
    public mutating func finish() -> [RTPAccessUnit] {
        guard var unit = current else { return [] }
        current = nil
        let problems = depacketizer.finish()
        if !problems.isEmpty { unit.problems += problems; unit.damaged = true }
        return [unit]
    }
}

public typealias H264AccessUnitReceiver = AccessUnitReceiver<H264PayloadFormat>
public typealias H265AccessUnitReceiver = AccessUnitReceiver<H265PayloadFormat>
