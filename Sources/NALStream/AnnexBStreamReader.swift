/// Cuts an Annex B byte stream that arrives in chunks of any size (from a pipe or a network) into NAL
/// units. A start code or a NAL unit may be split across chunks; a NAL unit is emitted once the start code
/// after it has arrived, or at ``finish()``.
///
/// Each byte is scanned once: the search resumes where the previous chunk ended.
public struct AnnexBStreamReader {
    private var buffer: [UInt8] = []
    /// Stream offset of buffer[0].
    private var bufferBase = 0
    /// Index in `buffer` of the current NAL unit's first byte (after its start code), if one has begun.
    private var unitStart: Int?
    /// Index from which the next start-code search begins.
    private var scanFrom = 0

    public init() {}

    /// Total bytes received so far.
    public var bytesReceived: Int { bufferBase + buffer.count }

    /// Adds a chunk; returns the NAL units it completed.
    public mutating func append<C: Collection>(_ chunk: C) -> [NALUnit] where C.Element == UInt8 {
        buffer.append(contentsOf: chunk)
        var units: [NALUnit] = []
        buffer.withUnsafeBufferPointer { buf in
            while let start = AnnexBScanner.nextStartCode(in: buf, from: scanFrom) {
                if let begin = unitStart { emit(begin, start, buf, into: &units) }
                unitStart = start + 3
                scanFrom = start + 3
            }
        }
        // Resume two bytes back, so a start code split across chunks is still found.
        scanFrom = max(scanFrom, buffer.count - 2, unitStart ?? 0)
        compact()
        return units
    }

    /// Ends the stream: returns the last NAL unit, if any.
    public mutating func finish() -> [NALUnit] {
        var units: [NALUnit] = []
        if let begin = unitStart {
            buffer.withUnsafeBufferPointer { emit(begin, buffer.count, $0, into: &units) }
        }
        bufferBase += buffer.count
        buffer.removeAll()
        unitStart = nil
        scanFrom = 0
        return units
    }

    private func emit(_ begin: Int, _ end: Int, _ buf: UnsafeBufferPointer<UInt8>, into units: inout [NALUnit]) {
        var last = end
        while last > begin && buf[last - 1] == 0 { last -= 1 }  // trailing_zero_8bits (B.1)
        guard last > begin else { return }
        units.append(NALUnit(Array(buf[begin..<last]), offset: bufferBase + begin))
    }

    /// Drops consumed bytes once they are the larger part of the buffer (amortised O(1) per byte).
    private mutating func compact() {
        let keepFrom = min(unitStart ?? scanFrom, scanFrom)
        guard keepFrom > 0, keepFrom >= buffer.count / 2 else { return }
        buffer.removeFirst(keepFrom)
        bufferBase += keepFrom
        scanFrom -= keepFrom
        if let s = unitStart { unitStart = s - keepFrom }
    }
}
