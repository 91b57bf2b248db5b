import H264Bitstream
import VideoDecoding
import VTKMedia

/// What the decoding process asks of its user (the VA accelerator and the session), in order.
public typealias H264DecoderEvent = DecoderEvent<H264FormatDescription, PictureDecodeRequest, DecodedPicture, PictureID, DecodingError>

/// Everything an accelerator needs to decode one picture: what VA-API's picture, matrix and slice
/// parameter buffers carry.
public struct PictureDecodeRequest: Hashable, Sendable {
    public var picture: DecodedPicture
    public var sps: SequenceParameterSet
    public var pps: PictureParameterSet
    /// Frame stores with a reference field when decoding starts (VA's ReferenceFrames), in DPB order; for a
    /// second field, its first field's store among them.
    public var referenceFrames: [DecodedPicture]
    /// The slices, each with its reference lists.
    public var slices: [SliceDecodeRequest]
    /// frame_num, for VA's picture parameters.
    public var frameNum: Int
    /// What is decoded: a frame (MBAFF or not), or one field of ``picture``'s store.
    public var structure: PictureStructure = .frame
    /// The second field of a pair: it goes into the surface that holds the first.
    public var isSecondField = false
}

public struct SliceDecodeRequest: Hashable, Sendable {
    public var slice: Slice
    public var lists: ReferencePictureLists
}

/// The H.264 decoding process of clause 8 for frames, MBAFF frames and field pictures, without VA: picture order count,
/// frame_num gaps, reference marking, reference lists, and output order through the DPB (Annex C).
///
/// Feed access units in decoding order with ``decode(_:presentationTime:)``; call ``flush()`` at the end.
/// Each call returns the events to carry out, in order. Pictures before the first IDR (or recovery point)
/// are skipped; damaged pictures are decoded where possible and marked ``DecodedPicture/isDamaged``.
///
/// Fields: each field picture is its own access unit and its own `.decode` request; the two fields of a frame
/// share one frame store, so one ``PictureID`` (one surface), and ``PictureDecodeRequest/structure`` and
/// ``PictureDecodeRequest/isSecondField`` say which field is decoded. A store is output once both its fields
/// are decoded, woven; a field whose pair never comes is output alone, reported and flagged.
public struct H264DecodingProcess: Sendable {
    public private(set) var dpb = H264DecodedPictureBuffer(capacity: 1)
    public private(set) var format: H264FormatDescription?
    private var poc = PictureOrderCount()
    private var nextID = 0
    private var decodeIndex = 0
    private var maxLongTermFrameIdx: Int?
    /// frame_num of the previous reference picture (PrevRefFrameNum, 7.4.3).
    private var prevRefFrameNum = 0
    private var hasKeyframe = false
    /// Byte offset of the last first field, for the problem when its pair never comes.
    private var firstFieldOffset = 0
    /// The last reference picture was a first field (its pair may be missing).
    private var lastReferenceWasField = false
    /// A reference picture has been decoded since the last IDR or MMCO 5 (so PrevRefFrameNum is that
    /// picture's frame_num, not an inferred one).
    private var decodedReferenceSinceKeyframe = false
    /// After starting at a recovery point SEI (D.2.8): the frame_num of the recovery point picture, from
    /// which output is exact again. Pictures before it are flagged damaged.
    private var recoveryFrameNum: Int?
    /// Damage does not spread from pictures decoded before this decode index: the stream promised (IDR,
    /// or a reached recovery point) that later pictures are right whatever those references held.
    private var cleanSince = 0

    public init() {}

    /// MaxFS of the largest level, 6.2 (Table A-1): no conforming stream has bigger pictures.
    public static let maxFrameSizeInMbs = 139_264

    /// Runs the decoding process on one access unit.
    public mutating func decode(_ unit: AccessUnit, presentationTime: MediaTime = .invalid) -> [H264DecoderEvent] {
        var events: [H264DecoderEvent] = []
        // A picture's decode request and the outputs and releases its storing brings, without regrowing the array
        // of these large events.
        events.reserveCapacity(4)
        for problem in unit.problems { events.append(.problem(.bitstream(problem, byteOffset: unit.offset))) }
        guard let first = unit.slices.first else { return events }
        let header = first.header
        guard let pps = unit.parameterSets.pps[header.picParameterSetId],
              let sps = unit.parameterSets.sps[pps.seqParameterSetId] else {
            events.append(.problem(.bitstream(.missingParameterSet(kind: "PPS", id: header.picParameterSetId), byteOffset: unit.offset)))
            return events
        }
        guard sps.chromaFormatIdc <= 1, sps.bitDepthLuma == 8, sps.bitDepthChroma == 8 else {
            let chroma = ["4:0:0 (monochrome)", "4:2:0", "4:2:2", "4:4:4"][min(sps.chromaFormatIdc, 3)]
            let what = (sps.bitDepthLuma != 8 ? ["\(sps.bitDepthLuma)-bit"] : []) + (sps.chromaFormatIdc != 1 ? [chroma] : [])
            events.append(.problem(.unsupportedStream("\(H264Profile(sps: sps).name) profile (\(what.joined(separator: ", "))) is not supported by this device")))
            return events
        }
        // Checked before any surface is allocated for the sequence: a (damaged) SPS may ask for up to
        // 16384x16384, which no level allows (Table A-1).
        guard sps.picWidthInMbs * sps.frameHeightInMbs <= Self.maxFrameSizeInMbs else {
            events.append(.problem(.unsupportedStream("a \(sps.codedWidth)x\(sps.codedHeight) picture (\(sps.picWidthInMbs * sps.frameHeightInMbs) macroblocks) "
                + "is larger than any H.264 level allows (\(Self.maxFrameSizeInMbs) macroblocks, level 6.2)")))
            return events
        }

        // A new sequence: new format, possibly a new decoder.
        if header.idrPicFlag || format == nil {
            if let newFormat = try? H264FormatDescription(parameterSets: unit.parameterSets) {
                // The DPB size follows the active SPS (A.3.1 item h): a new level_idc alone may change it, and the
                // session then needs a surface pool of the new size, as for a new decoder.
                let capacity = H264DecodedPictureBuffer.capacity(for: sps)
                if format.map({ newFormat.requiresNewDecoder(comparedTo: $0) }) ?? true || capacity != dpb.capacity {
                    // C.4.4 with a size change: prior pictures are output (vtk keeps every decoded picture).
                    events += translate(dpb.flush(output: true))
                    dpb = H264DecodedPictureBuffer(capacity: capacity, maxNumReorderFrames: H264BufferRules.maxNumReorderFrames(for: sps))
                    events.append(.newSequence(newFormat, dpbCapacity: dpb.capacity))
                }
                format = newFormat
            }
        }

        // Wait for a keyframe: an IDR, or a recovery point SEI.
        if !hasKeyframe {
            if header.idrPicFlag {
                hasKeyframe = true
            } else if let point = unit.recoveryPoint {
                hasKeyframe = true
                recoveryFrameNum = (header.frameNum + point.recoveryFrameCnt) % sps.maxFrameNum
                prevRefFrameNum = (header.frameNum + sps.maxFrameNum - 1) % sps.maxFrameNum
            } else {
                events.append(.problem(.waitingForKeyframe(byteOffset: unit.offset)))
                return events
            }
        }

        let structure = PictureStructure(header)
        // The second field of a pair: it follows its first field directly, has the opposite parity and the
        // same frame_num, and is not an IDR after a non-IDR first field (7.4.1.2.4, 7.4.3).
        var firstField: DecodedPicture?
        if let id = dpb.awaitingSecondField {
            if let first = dpb.picture(id), structure.isField, structure == first.structure.opposite,
               header.frameNum == first.frameNum, !header.idrPicFlag || first.isIDR {
                firstField = first
            } else {
                events += endUnpairedField()
            }
        }

        // 7.4.3: after a reference frame, frame_num must move on; the same value again means a repeated picture
        // (the second field of a pair shares its first field's frame_num).
        var repeated = false
        if firstField == nil && !header.idrPicFlag && header.frameNum == prevRefFrameNum && decodedReferenceSinceKeyframe
            && !prevReferenceWasUnpairedField(structure) {
            events.append(.problem(.repeatedFrameNum(byteOffset: unit.offset, frameNum: header.frameNum)))
            repeated = true
        }

        // 8.2.5.2: gaps in frame_num.
        if firstField == nil && !header.idrPicFlag && header.frameNum != prevRefFrameNum && header.frameNum != (prevRefFrameNum + 1) % sps.maxFrameNum {
            events += fillFrameNumGap(upTo: header.frameNum, sps: sps, offset: unit.offset)
        }

        // C.4.4: an IDR empties the DPB first.
        if header.idrPicFlag && firstField == nil {
            let noOutput = header.decRefPicMarking?.noOutputOfPriorPicsFlag ?? false
            events += translate(dpb.flush(output: !noOutput))
            // The emptied DPB takes the output rule of the sequence this IDR starts (its SPS may differ).
            dpb.rules = H264BufferRules(maxNumReorderFrames: H264BufferRules.maxNumReorderFrames(for: sps))
            maxLongTermFrameIdx = nil
        }

        // The current picture: a new frame store, or the store of its first field.
        let pocResult = poc.compute(slice: header, sps: sps)
        var current: DecodedPicture
        if var store = firstField {
            if structure == .topField { store.topFieldOrderCnt = pocResult.topFieldOrderCnt } else { store.bottomFieldOrderCnt = pocResult.bottomFieldOrderCnt }
            store.hasTopField = true
            store.hasBottomField = true
            store.structure = .frame
            if !unit.problems.isEmpty { store.isDamaged = true }
            current = store
        } else {
            current = DecodedPicture(id: PictureID(rawValue: nextID), decodeIndex: decodeIndex, frameNum: header.frameNum)
            nextID += 1
            decodeIndex += 1
            current.topFieldOrderCnt = pocResult.topFieldOrderCnt
            current.bottomFieldOrderCnt = pocResult.bottomFieldOrderCnt
            current.structure = structure
            current.hasTopField = structure != .bottomField
            current.hasBottomField = structure != .topField
            current.codedStructure = structure
            current.isInterlaced = !sps.frameMbsOnlyFlag
            current.picStruct = unit.pictureTimingPayload.flatMap { PictureTiming.picStruct(payload: $0, sps: sps) }
            current.isMbaff = !structure.isField && sps.mbAdaptiveFrameFieldFlag
            current.isIDR = header.idrPicFlag
            current.nalRefIdc = header.nalRefIdc
            current.neededForOutput = true
            current.presentationTime = presentationTime
            current.frameNumWrap = header.frameNum
            if header.idrPicFlag { cleanSince = current.decodeIndex }
            if let target = recoveryFrameNum {
                if header.frameNum == target {
                    recoveryFrameNum = nil
                    cleanSince = current.decodeIndex
                } else {
                    current.isDamaged = true
                }
            }
            if !unit.problems.isEmpty || repeated { current.isDamaged = true }
        }
        let currentPOC = structure == .frame ? current.picOrderCnt : current.orderCount(of: structure)

        // 8.2.4.1 then 8.2.4.2/8.2.4.3 for each slice.
        ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: header.frameNum, maxFrameNum: sps.maxFrameNum)
        var slices: [SliceDecodeRequest] = []
        for slice in unit.slices {
            let lists = ReferencePictureLists(slice: slice.header, currentPOC: currentPOC, dpb: dpb, maxFrameNum: sps.maxFrameNum)
            // Damage spreads through prediction: a picture is only as right as the pictures it refers to.
            let cleanSince = cleanSince
            let spreadsDamage: (DecodedPicture?) -> Bool = { $0.map { ($0.isDamaged || $0.nonExisting) && $0.decodeIndex >= cleanSince } ?? false }
            if lists.list0.contains(where: spreadsDamage) || lists.list1.contains(where: spreadsDamage) {
                current.isDamaged = true
            }
            if !lists.problems.isEmpty {
                current.isDamaged = true
                events.append(.problem(.missingReference(byteOffset: slice.nalUnit.offset, detail: lists.problems.joined(separator: "; "))))
            }
            slices.append(SliceDecodeRequest(slice: slice, lists: lists))
        }
        events.append(.decode(PictureDecodeRequest(picture: current, sps: sps, pps: pps, referenceFrames: dpb.referenceFrames,
                                                   slices: slices, frameNum: header.frameNum, structure: structure,
                                                   isSecondField: firstField != nil)))

        // 8.2.5: reference marking after decoding.
        if header.nalRefIdc != 0 {
            events += mark(&current, header: header, structure: structure, isSecondField: firstField != nil, sps: sps, offset: unit.offset)
        }
        poc.pictureDecoded(pocResult, slice: header, picture: current)

        // C.4.5: store, outputting what must go first.
        if structure.isField && firstField == nil { firstFieldOffset = unit.offset }
        if firstField != nil {
            events += translate(dpb.completeSecondField(current))
        } else {
            events += translate(dpb.store(current))
        }
        return events
    }

    /// The previous reference picture was a first field whose pair never came: a field of the same
    /// frame_num may follow it (an unpaired field is no repeated frame).
    private func prevReferenceWasUnpairedField(_ structure: PictureStructure) -> Bool {
        structure.isField && lastReferenceWasField
    }

    /// 8.2.5.1: marks the current reference picture (and, through MMCOs or the sliding window, others).
    private mutating func mark(_ current: inout DecodedPicture, header: SliceHeader, structure: PictureStructure, isSecondField: Bool,
                               sps: SequenceParameterSet, offset: Int) -> [H264DecoderEvent] {
        var events: [H264DecoderEvent] = []
        if header.idrPicFlag {
            if !isSecondField { _ = dpb.markAllUnused() }
            if header.decRefPicMarking?.longTermReferenceFlag == true {
                current.setReference(.longTerm, of: structure)
                current.longTermFrameIdx = 0
                maxLongTermFrameIdx = 0
            } else {
                current.setReference(.shortTerm, of: structure)
                if !isSecondField { maxLongTermFrameIdx = nil }
            }
        } else {
            let marking = header.decRefPicMarking ?? DecRefPicMarking()
            var markedLongTerm = false
            if marking.adaptiveRefPicMarkingModeFlag {
                var problems: [String] = []
                let currPicNum = structure.isField ? 2 * header.frameNum + 1 : header.frameNum
                let result = ReferencePictureMarking.adaptive(&dpb, operations: marking.operations, current: &current, structure: structure,
                                                              currPicNum: currPicNum, maxLongTermFrameIdx: maxLongTermFrameIdx,
                                                              problems: &problems)
                maxLongTermFrameIdx = result.maxLongTermFrameIdx
                markedLongTerm = marking.operations.contains { $0.operation == 6 }
                if !problems.isEmpty {
                    events.append(.problem(.missingReference(byteOffset: offset, detail: problems.joined(separator: "; "))))
                }
                if result.mmco5 {
                    current.hadMMCO5 = true
                    // 8.2.1: after MMCO 5 the picture's POCs are relative to itself, and its frame_num is 0.
                    switch structure {
                    case .frame:
                        let temp = current.picOrderCnt
                        current.topFieldOrderCnt -= temp
                        current.bottomFieldOrderCnt -= temp
                    case .topField: current.topFieldOrderCnt = 0
                    case .bottomField: current.bottomFieldOrderCnt = 0
                    }
                    current.frameNum = 0
                    current.frameNumWrap = 0
                    // C.4.4 applies as for an IDR: prior pictures are output first.
                    if isSecondField {
                        dpb.update(current.id) { $0.neededForOutput = false }
                        events += translate(dpb.flush(output: true).filter { $0 != .removed(current.id) })
                    } else {
                        events += translate(dpb.flush(output: true))
                    }
                }
            } else if !(isSecondField && current.reference(of: structure.opposite) == .shortTerm) {
                // The second field of a pair whose first field is short-term joins it; anything else may
                // push the oldest short-term store out (8.2.5.3).
                ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: sps.maxNumRefFrames, excluding: current.id)
            }
            if !markedLongTerm || current.reference(of: structure) != .longTerm { current.setReference(.shortTerm, of: structure) }
        }
        // More references than allowed can only come from a damaged stream: apply the sliding window.
        let currentID = current.id
        while dpb.pictures.reduce(0, { $1.isReference && $1.id != currentID ? $0 + 1 : $0 }) + 1 > max(sps.maxNumRefFrames, 1),
              let oldest = dpb.oldestShortTermStore(excluding: currentID) {
            dpb.update(oldest.id) { $0.topReference = .unused; $0.bottomReference = .unused }
        }
        prevRefFrameNum = current.hadMMCO5 ? 0 : header.frameNum
        decodedReferenceSinceKeyframe = !current.hadMMCO5
        lastReferenceWasField = structure.isField && !isSecondField
        return events
    }

    /// Marks a picture as damaged after the fact (the decoder reported errors in it), so that pictures
    /// decoded from now on that refer to it are flagged too.
    public mutating func markDamaged(_ id: PictureID) {
        dpb.update(id) { $0.isDamaged = true }
    }

    /// Outputs everything still in the DPB (end of stream).
    public mutating func flush() -> [H264DecoderEvent] {
        endUnpairedField() + translate(dpb.flush(output: true))
    }

    /// The first field awaiting its pair will not get it: it stays a lone field, flagged (its frame's other
    /// lines are undefined), and can be output on its own.
    private mutating func endUnpairedField() -> [H264DecoderEvent] {
        guard let id = dpb.awaitingSecondField, let store = dpb.picture(id) else { return [] }
        dpb.update(id) { $0.isDamaged = true; $0.isUnpaired = true }
        var events: [H264DecoderEvent] = [.problem(.unpairedField(byteOffset: firstFieldOffset, field: store.structure.description))]
        events += translate(dpb.endFieldPairing())
        return events
    }

    /// 8.2.5.2: non-existing frames for the missing frame_num values, marked by the sliding window.
    private mutating func fillFrameNumGap(upTo frameNum: Int, sps: SequenceParameterSet, offset: Int) -> [H264DecoderEvent] {
        var events: [H264DecoderEvent] = []
        var missing = (prevRefFrameNum + 1) % sps.maxFrameNum
        var count = 0
        while missing != frameNum && count < sps.maxFrameNum {
            count += 1
            missing = (missing + 1) % sps.maxFrameNum
        }
        if !sps.gapsInFrameNumValueAllowedFlag {
            events.append(.problem(.lostPictures(byteOffset: offset, previousFrameNum: prevRefFrameNum, frameNum: frameNum)))
        }
        // Only the last max_num_ref_frames of them can matter: the sliding window drops the rest.
        let made = min(count, max(sps.maxNumRefFrames, 1))
        var unused = (prevRefFrameNum + 1 + (count - made)) % sps.maxFrameNum
        for _ in 0..<made {
            ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: unused, maxFrameNum: sps.maxFrameNum)
            ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: sps.maxNumRefFrames)
            let result = poc.gapFrameInferred(frameNum: unused, sps: sps)
            var frame = DecodedPicture(id: PictureID(rawValue: nextID), decodeIndex: decodeIndex, frameNum: unused)
            nextID += 1
            frame.frameNumWrap = unused
            frame.topFieldOrderCnt = result.topFieldOrderCnt
            frame.bottomFieldOrderCnt = result.bottomFieldOrderCnt
            frame.reference = .shortTerm
            frame.nonExisting = true
            frame.nalRefIdc = 1
            events += translate(dpb.store(frame))
            prevRefFrameNum = unused
            unused = (unused + 1) % sps.maxFrameNum
        }
        return events
    }

    /// A non-existing frame (8.2.5.2) is never output: it is only released.
    private func translate(_ dpbEvents: [H264DecodedPictureBuffer.Event]) -> [H264DecoderEvent] {
        dpbEvents.map { event in
            if case .output(let picture) = event, picture.nonExisting { return .released(picture.id) }
            return H264DecoderEvent(event)
        }
    }
}
