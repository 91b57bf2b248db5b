import CLibVA

/// A reference list entry of an encode picture: the surface, read on the worker (its reconstruction, else
/// its pixels, a violation).
struct PendingReference {
    let surface: Surface
    let id: VASurfaceID
    let list: Int
    let index: Int
    let picOrderCnt: Int
    let isLongTerm: Bool

    /// A list entry as the client wrote it, whatever the codec's VAPicture struct.
    struct Named {
        let id: VASurfaceID
        /// VA_PICTURE_H264_INVALID / VA_PICTURE_HEVC_INVALID set, or VA_INVALID_SURFACE.
        let invalid: Bool
        let picOrderCnt: Int
        let isLongTerm: Bool
    }

    /// The lists of one inter slice: the entries named (RefPicList0, RefPicList1) and how many of each are active.
    struct SliceLists {
        let named: [[Named]]
        let activeCounts: [Int]
    }

    /// RefPicList0/1 of the first inter slice, each entry's surface resolved: slices with other lists, and an
    /// invalid entry inside num_ref_idx_active, are INVALID_PARAMETER; an entry naming no surface is whatever
    /// `surface` throws (INVALID_SURFACE). An entry missing from the picture's reference frames is a violation;
    /// `check` adds the codec's own per entry. `listName`/`framesName`: the codec's VA names in messages.
    static func lists(of slices: [SliceLists], referenceFrames: [VASurfaceID], listName: String, framesName: String,
                      surface: (VASurfaceID) throws(VAError) -> Surface, violation: (String) -> Void,
                      check: (Named, _ list: Int, _ index: Int) -> Void = { _, _, _ in }) throws(VAError) -> [[PendingReference]] {
        guard let first = slices.first else { return [[], []] }
        var built: [[PendingReference]] = [[], []]
        for l in 0..<2 {
            for (i, entry) in first.named[l].prefix(first.activeCounts[l]).enumerated() {
                guard !entry.invalid else {
                    throw VAError.invalidParameter.because("\(listName)\(l)[\(i)] is invalid inside num_ref_idx_l\(l)_active")
                }
                let reference = try surface(entry.id)
                if !referenceFrames.contains(entry.id) {
                    violation("\(listName)\(l)[\(i)] names surface \(entry.id), which is not in \(framesName)")
                }
                check(entry, l, i)
                built[l].append(PendingReference(surface: reference, id: entry.id, list: l, index: i,
                                                 picOrderCnt: entry.picOrderCnt, isLongTerm: entry.isLongTerm))
            }
        }
        let firstIDs = built.map { $0.map(\.id) }
        for slice in slices.dropFirst() {
            let ids = (0..<2).map { l in slice.named[l].prefix(slice.activeCounts[l]).map(\.id) }
            guard ids == firstIDs else { throw VAError.invalidParameter.because("slices of one picture with different reference lists") }
        }
        return built
    }

    /// The reconstruction kept with the surface, or, when it holds none (a violation), `fallback`: the
    /// surface's own pixels, as hardware reads them.
    func picture<Picture>(_ kept: Picture?, listName: String, violation: (String) -> Void, fallback: () -> Picture) -> Picture {
        if let kept { return kept }
        violation("\(listName)\(list)[\(index)] names surface \(id), which holds no reconstructed picture")
        return fallback()
    }
}
