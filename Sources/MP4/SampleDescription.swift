import H264Bitstream
import H265Bitstream

/// The first entry of `stsd` (8.5.2): the sample format, and for H.264 its avcC record, size and pixel
/// aspect ratio.
public struct SampleDescription: Hashable, Sendable {
    /// `avc1`, `avc3`, `hvc1`, `mp4a`, ...
    public var format: FourCC
    /// File offset of the sample entry (for errors).
    public var offset: UInt64
    /// Visual sample entries only.
    public var width: Int = 0
    public var height: Int = 0
    /// `avcC` of an `avc1`/`avc3` entry.
    public var avcC: AVCDecoderConfigurationRecord?
    /// `hvcC` of an `hvc1`/`hev1` entry.
    public var hvcC: HEVCDecoderConfigurationRecord?
    /// `pasp`, when present.
    public var pixelAspectRatio: (horizontal: UInt32, vertical: UInt32)?

    static let visualFormats: Set<FourCC> = ["avc1", "avc2", "avc3", "avc4", "hvc1", "hev1", "mp4v", "av01", "vp09", "encv"]

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        _ = try r.fullBoxHeader()
        let count = try r.u32()
        guard count > 0 else { throw r.malformed("no sample entry") }
        let entryOffset = r.position
        let header = try BoxHeader.parse(r.bytes[r.index...], offset: entryOffset, spaceLeft: UInt64(r.remaining), parent: "stsd")
        format = header.type
        offset = entryOffset
        let start = r.index + header.headerSize
        let entryBytes = r.bytes[start..<(r.index + Int(header.size))]
        guard Self.visualFormats.contains(format) else { return }
        var e = BoxReader(type: format, bytes: entryBytes, fileOffset: header.payloadOffset)
        // SampleEntry (6 reserved, data_reference_index) + VisualSampleEntry fields (8.5.2.2): 78 bytes.
        try e.skip(6 + 2 + 16)
        width = Int(try e.u16())
        height = Int(try e.u16())
        try e.skip(4 + 4 + 4 + 2 + 32 + 2 + 2)
        let children = try Box.parseChildren(e.rest(), fileOffset: e.fileOffset + 78, parent: format, depth: 4)
        if let avcCBox = children.first(where: { $0.type == "avcC" }) {
            do {
                avcC = try AVCDecoderConfigurationRecord(bytes: Array(avcCBox.payload))
            } catch {
                throw .malformed(box: "avcC", offset: avcCBox.header.offset, reason: error.description)
            }
        }
        if let hvcCBox = children.first(where: { $0.type == "hvcC" }) {
            do {
                hvcC = try HEVCDecoderConfigurationRecord(bytes: Array(hvcCBox.payload))
            } catch {
                throw .malformed(box: "hvcC", offset: hvcCBox.header.offset, reason: error.description)
            }
        }
        if let pasp = children.first(where: { $0.type == "pasp" }) {
            var p = pasp.reader
            pixelAspectRatio = (try p.u32(), try p.u32())
        }
    }

    public static func == (a: SampleDescription, b: SampleDescription) -> Bool {
        a.format == b.format && a.offset == b.offset && a.width == b.width && a.height == b.height && a.avcC == b.avcC && a.hvcC == b.hvcC
            && a.pixelAspectRatio?.horizontal == b.pixelAspectRatio?.horizontal && a.pixelAspectRatio?.vertical == b.pixelAspectRatio?.vertical
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(format)
        hasher.combine(offset)
    }
}
