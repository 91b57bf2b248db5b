import Foundation
import H264Bitstream

/// H.264 streams made at test time by rewriting the headers of a ``GeneratedStream`` with
/// ``SliceRewriter``. The slice data is untouched and every edit keeps the decoding process's result, so
/// an edited stream decodes to the pictures of its base stream: FFmpeg's decode of the base is an oracle.
public struct EditedStream: Sendable, CustomStringConvertible {
    public enum Edit: Sendable, Hashable {
        /// 16-bit frame_num (log2_max_frame_num_minus4 12) and idr_pic_id 65535 / 65534 on alternate IDR
        /// pictures: an IDR slice header then holds 31 or more zero bits in a row (frame_num 0, then
        /// idr_pic_id's ue(v) prefix), so it must contain an emulation prevention byte (7.4.1).
        case emulationPreventionInSliceHeaders
        /// memory_management_control_operation 5 in the given pictures (decoding order; non-IDR reference
        /// pictures), with frame_num and pic_order_cnt_lsb of the pictures after each made relative to it
        /// (7.4.3: the picture counts as frame_num 0 afterwards; 8.2.1: its POC becomes 0).
        case mmco5(pictures: [Int])
    }

    public let name: String
    public let base: GeneratedStream
    public let edit: Edit

    public var description: String { name }

    public init(name: String, base: GeneratedStream, edit: Edit) {
        self.name = name
        self.base = base
        self.edit = edit
    }

    /// Streams whose slice headers contain emulation prevention bytes: CABAC with B-frames, and CAVLC.
    public static let emulationPrevention: [EditedStream] = [
        EditedStream(name: "edited-epb-header-main-cabac-slices-320x240",
                     base: GeneratedStream(name: "x264-main-slices-keyint5-320x240", width: 320, height: 240, frames: 20,
                                           encoderOptions: ["-c:v", "libx264", "-profile:v", "main",
                                                            "-x264-params", "bframes=2:slices=3:keyint=5:min-keyint=5:scenecut=0:ref=2"]),
                     edit: .emulationPreventionInSliceHeaders),
        EditedStream(name: "edited-epb-header-baseline-cavlc-176x144",
                     base: GeneratedStream(name: "x264-baseline-keyint4-176x144", width: 176, height: 144, frames: 16,
                                           encoderOptions: ["-c:v", "libx264", "-profile:v", "baseline",
                                                            "-x264-params", "slices=2:keyint=4:min-keyint=4:scenecut=0:ref=2"]),
                     edit: .emulationPreventionInSliceHeaders),
    ]

    /// A stream with MMCO 5 in three pictures; one reference frame, so the picture
    /// after each refers only to the MMCO 5 picture.
    public static let mmco5 = EditedStream(
        name: "edited-mmco5-baseline-slices-176x144",
        base: GeneratedStream(name: "x264-baseline-ref1-176x144", width: 176, height: 144, frames: 24,
                              encoderOptions: ["-c:v", "libx264", "-profile:v", "baseline", "-x264-params", "ref=1:slices=2:keyint=30:scenecut=0"]),
        edit: .mmco5(pictures: [5, 11, 16]))

    private static let lock = NSLock()

    /// The stream's file, made on first use.
    public func url() throws -> URL {
        let baseURL = try base.url()
        let file = baseURL.deletingLastPathComponent().appendingPathComponent("\(name)-\(baseURL.deletingPathExtension().lastPathComponent).264")
        Self.lock.lock()
        defer { Self.lock.unlock() }
        if FileManager.default.fileExists(atPath: file.path) { return file }
        let edited = try Self.apply(edit, to: [UInt8](try Data(contentsOf: baseURL)))
        let partial = file.appendingPathExtension("part")
        try Data(edited).write(to: partial)
        try FileManager.default.moveItem(at: partial, to: file)
        return file
    }

    /// ref_pic_list_modification() entries (8.2.4.3.1, frames) that pick the same short-term pictures when
    /// MaxPicNum changes from `oldMax` to `newMax`.
    static func modifications(_ list: [RefPicListModification], currPicNum: Int, from oldMax: Int, to newMax: Int) -> [RefPicListModification] {
        var oldPred = currPicNum, newPred = currPicNum
        return list.map { entry in
            guard entry.modificationOfPicNumsIdc < 2 else { return entry }
            var noWrap = entry.modificationOfPicNumsIdc == 0 ? oldPred - (entry.value + 1) : oldPred + (entry.value + 1)
            if noWrap < 0 { noWrap += oldMax } else if noWrap >= oldMax { noWrap -= oldMax }
            oldPred = noWrap
            let picNum = noWrap > currPicNum ? noWrap - oldMax : noWrap
            let target = picNum < 0 ? picNum + newMax : picNum
            defer { newPred = target }
            return target < newPred ? RefPicListModification(modificationOfPicNumsIdc: 0, value: newPred - target - 1)
                : RefPicListModification(modificationOfPicNumsIdc: 1, value: (target - newPred - 1 + newMax) % newMax)
        }
    }

    /// `bytes` with the edit made.
    public static func apply(_ edit: Edit, to bytes: [UInt8]) throws -> [UInt8] {
        switch edit {
        case .emulationPreventionInSliceHeaders:
            var idrPictures = 0, lastIDRPicture = -1
            return try SliceRewriter.rewrite(bytes, editSPS: { $0.log2MaxFrameNumMinus4 = 12 }) { slice in
                // Same reference lists under the new MaxFrameNum (x264's modifications wrap around it).
                let (oldMax, newMax) = (1 << (slice.originalSPS.log2MaxFrameNumMinus4 + 4), 1 << (slice.sps.log2MaxFrameNumMinus4 + 4))
                slice.header.refPicListModificationL0 = Self.modifications(slice.header.refPicListModificationL0, currPicNum: slice.header.frameNum,
                                                                           from: oldMax, to: newMax)
                slice.header.refPicListModificationL1 = Self.modifications(slice.header.refPicListModificationL1, currPicNum: slice.header.frameNum,
                                                                           from: oldMax, to: newMax)
                guard slice.header.idrPicFlag else { return }
                if slice.pictureIndex != lastIDRPicture { idrPictures += 1; lastIDRPicture = slice.pictureIndex }
                slice.header.idrPicId = 65535 - idrPictures % 2  // consecutive IDR pictures differ (7.4.3)
            }
        case .mmco5(let pictures):
            // frame_num and pic_order_cnt_lsb of the last MMCO 5 picture (as coded originally), else 0.
            var frameNumBase = 0, pocLsbBase = 0, current = -1, currentIsMMCO5 = false, pending: (Int, Int)?
            return try SliceRewriter.rewrite(bytes) { slice in
                if slice.pictureIndex != current {
                    current = slice.pictureIndex
                    if let (frameNum, lsb) = pending { (frameNumBase, pocLsbBase) = (frameNum, lsb) }
                    pending = nil
                    if slice.header.idrPicFlag { (frameNumBase, pocLsbBase) = (0, 0) }
                    currentIsMMCO5 = pictures.contains(current) && !slice.header.idrPicFlag && slice.header.nalRefIdc != 0
                    if currentIsMMCO5 { pending = (slice.header.frameNum, slice.header.picOrderCntLsb) }
                }
                let maxFrameNum = 1 << (slice.sps.log2MaxFrameNumMinus4 + 4)
                let maxLsb = 1 << (slice.sps.log2MaxPicOrderCntLsbMinus4 + 4)
                slice.header.frameNum = (slice.header.frameNum - frameNumBase + maxFrameNum) % maxFrameNum
                if slice.sps.picOrderCntType == 0 {
                    slice.header.picOrderCntLsb = (slice.header.picOrderCntLsb - pocLsbBase + maxLsb) % maxLsb
                }
                if currentIsMMCO5 {
                    var marking = DecRefPicMarking()
                    marking.adaptiveRefPicMarkingModeFlag = true
                    marking.operations = [MemoryManagementControlOperation(operation: 5)]
                    slice.header.decRefPicMarking = marking
                }
            }
        }
    }
}

extension GeneratedStream {
    /// libx264 streams whose P slices have 16 references and weighted prediction: the pred_weight_table of
    /// their headers holds long runs of zero flags, so many headers contain an emulation prevention byte.
    public static let emulationPreventionInSliceHeaders: [GeneratedStream] = [
        GeneratedStream(name: "x264-high-cavlc-weightp-ref16-slices-320x240", width: 320, height: 240, frames: 20,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "high", "-x264-params", "cabac=0:ref=16:weightp=1:bframes=0:slices=3"]),
        GeneratedStream(name: "x264-main-cabac-weightp-ref16-slices-320x240", width: 320, height: 240, frames: 20,
                        encoderOptions: ["-c:v", "libx264", "-profile:v", "main", "-x264-params", "ref=16:weightp=1:bframes=0:slices=2"]),
    ]
}
