/// A box read into memory: its header, its payload, and (for container boxes) its children.
struct Box {
    let header: BoxHeader
    /// The payload bytes (after the header), a slice of the enclosing buffer.
    let payload: ArraySlice<UInt8>
    let children: [Box]

    var type: FourCC { header.type }

    /// Boxes whose payload is a sequence of boxes. `stsd` and sample entries are parsed by their own
    /// types, `meta` (a full box) is not descended into.
    static let containerTypes: Set<FourCC> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex", "moof", "traf", "udta", "mfra"]

    /// The deepest nesting the reader accepts; real files use about 8.
    static let maximumDepth = 16

    /// Parses the box at the start of `buffer` (whose first byte is at `fileOffset`), reading its
    /// container children.
    init(header: BoxHeader, payload: ArraySlice<UInt8>, depth: Int = 0) throws(MP4Error) {
        self.header = header
        self.payload = payload
        if Box.containerTypes.contains(header.type) {
            guard depth < Box.maximumDepth else {
                throw .nestingTooDeep(box: header.type.description, offset: header.offset, depth: depth + 1)
            }
            children = try Box.parseChildren(payload, fileOffset: header.payloadOffset, parent: header.type, depth: depth + 1)
        } else {
            children = []
        }
    }

    /// The boxes in `bytes`, which start at `fileOffset` and fill it exactly.
    static func parseChildren(_ bytes: ArraySlice<UInt8>, fileOffset: UInt64, parent: FourCC, depth: Int) throws(MP4Error) -> [Box] {
        var boxes: [Box] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let offset = fileOffset + UInt64(index - bytes.startIndex)
            let left = bytes.endIndex - index
            // A few padding zero bytes at the end of a container are tolerated (some writers leave them).
            if left < 8 && bytes[index...].allSatisfy({ $0 == 0 }) { break }
            let header = try BoxHeader.parse(bytes[index...], offset: offset, spaceLeft: UInt64(left), parent: parent)
            let start = index + header.headerSize
            let end = index + Int(header.size)
            boxes.append(try Box(header: header, payload: bytes[start..<end], depth: depth))
            index = end
        }
        return boxes
    }

    func first(_ type: FourCC) -> Box? { children.first { $0.type == type } }
    func all(_ type: FourCC) -> [Box] { children.filter { $0.type == type } }

    func required(_ type: FourCC) throws(MP4Error) -> Box {
        guard let box = first(type) else {
            throw .missingBox(box: type.description, parent: header.type.description, offset: header.offset)
        }
        return box
    }

    /// A reader over the payload.
    var reader: BoxReader { BoxReader(self) }
}
