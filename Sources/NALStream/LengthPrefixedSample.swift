/// Length-prefixed NAL units (ISO/IEC 14496-15, 5.3.2): each NAL unit preceded by its length as a
/// big-endian integer of 1, 2 or 4 bytes. This is how MP4 and VideoToolbox carry H.264 samples ("AVCC").
public enum LengthPrefixedSample {
    /// A length field is 1, 2 or 4 bytes (lengthSizeMinusOne in avcC and hvcC).
    public static func checkLengthSize(_ lengthSize: Int) throws(BitstreamError) {
        guard [1, 2, 4].contains(lengthSize) else {
            throw .invalidValue(element: "NAL unit length size", value: Int64(lengthSize), bitOffset: 0)
        }
    }

    /// Splits a sample into NAL units. Throws when a length runs past the end of the sample, naming the
    /// offset of that length field.
    public static func nalUnits(in sample: [UInt8], lengthSize: Int = 4) throws(BitstreamError) -> [NALUnit] {
        try checkLengthSize(lengthSize)
        var units: [NALUnit] = []
        var position = 0
        while position < sample.count {
            guard sample.count - position >= lengthSize else {
                throw .malformedNALUnit(byteOffset: position, reason: "length field cut short: \(sample.count - position) of \(lengthSize) bytes")
            }
            var length = 0
            for i in 0..<lengthSize { length = (length << 8) | Int(sample[position + i]) }
            let start = position + lengthSize
            guard length <= sample.count - start else {
                throw .truncatedSample(byteOffset: position, declaredLength: length, available: sample.count - start)
            }
            guard length > 0 else {
                throw .malformedNALUnit(byteOffset: position, reason: "zero-length NAL unit")
            }
            units.append(NALUnit(bytes: sample[start..<(start + length)], offset: start))
            position = start + length
        }
        return units
    }

    /// Joins NAL units into one sample with `lengthSize`-byte lengths.
    public static func sample<S: Sequence>(_ units: S, lengthSize: Int = 4) throws(BitstreamError) -> [UInt8] where S.Element == NALUnit {
        try checkLengthSize(lengthSize)
        var out: [UInt8] = []
        for unit in units {
            let length = unit.bytes.count
            guard lengthSize == 4 || length < (1 << (8 * lengthSize)) else {
                throw .invalidValue(element: "NAL unit length for \(lengthSize)-byte field", value: Int64(length), bitOffset: 0)
            }
            for i in stride(from: lengthSize - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: length >> (8 * i))) }
            out.append(contentsOf: unit.bytes)
        }
        return out
    }

    /// Annex B byte stream -> length-prefixed sample.
    public static func fromAnnexB(_ bytes: [UInt8], lengthSize: Int = 4) throws(BitstreamError) -> [UInt8] {
        try sample(AnnexBScanner.nalUnits(in: bytes), lengthSize: lengthSize)
    }

    /// Length-prefixed sample -> Annex B byte stream (4-byte start codes).
    public static func toAnnexB(_ sample: [UInt8], lengthSize: Int = 4) throws(BitstreamError) -> [UInt8] {
        AnnexBScanner.byteStream(try nalUnits(in: sample, lengthSize: lengthSize))
    }
}
