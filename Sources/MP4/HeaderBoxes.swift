/// `ftyp` (4.3): the file's brands.
public struct FileType: Hashable, Sendable {
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        majorBrand = try r.fourCC()
        minorVersion = try r.u32()
        var brands: [FourCC] = []
        while r.remaining >= 4 { brands.append(try r.fourCC()) }
        compatibleBrands = brands
    }
}

/// `mvhd` (8.2.2): the movie's timescale and duration.
public struct MovieHeader: Hashable, Sendable {
    public var timescale: UInt32
    public var duration: UInt64

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        let (version, _) = try r.fullBoxHeader()
        (timescale, duration) = try r.timescaleAndDuration(version: version)
        guard timescale > 0 else { throw .malformed(box: "mvhd", offset: box.header.offset, reason: "timescale 0") }
    }
}

/// `tkhd` (8.3.2): track id, duration (movie timescale) and presentation size.
public struct TrackHeader: Hashable, Sendable {
    public var trackID: UInt32
    public var duration: UInt64
    /// 16.16 fixed point, as stored.
    public var width: UInt32
    public var height: UInt32

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        let (version, _) = try r.fullBoxHeader()
        if version == 1 {
            try r.skip(16)
            trackID = try r.u32()
            try r.skip(4)
            duration = try r.u64()
        } else {
            try r.skip(8)
            trackID = try r.u32()
            try r.skip(4)
            duration = UInt64(try r.u32())
        }
        try r.skip(8 + 2 + 2 + 2 + 2 + 36)
        width = try r.u32()
        height = try r.u32()
    }
}

/// `mdhd` (8.4.2): the media timescale (sample times are in it) and duration.
public struct MediaHeader: Hashable, Sendable {
    public var timescale: UInt32
    public var duration: UInt64

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        let (version, _) = try r.fullBoxHeader()
        (timescale, duration) = try r.timescaleAndDuration(version: version)
        guard timescale > 0, timescale <= UInt32(Int32.max) else {
            throw .malformed(box: "mdhd", offset: box.header.offset, reason: "timescale \(timescale) is not in 1...\(Int32.max)")
        }
    }
}

/// `hdlr` (8.4.3): the track's kind (`vide`, `soun`, ...).
public struct HandlerReference: Hashable, Sendable {
    public var handlerType: FourCC

    init(_ box: Box) throws(MP4Error) {
        var r = box.reader
        _ = try r.fullBoxHeader()
        try r.skip(4)
        handlerType = try r.fourCC()
    }
}
