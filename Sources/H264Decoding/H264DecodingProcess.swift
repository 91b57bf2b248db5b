import H264Bitstream
import VTKMedia

/// What the decoding process asks of its user (the VA accelerator and the session), in order.
public typealias H264DecoderEvent = DecoderEvent<FormatDescription, PictureDecodeRequest, DecodedPicture, PictureID, DecodingError>

/// Everything an accelerator needs to decode one picture: what VA-API's picture, matrix and slice
/// parameter buffers carry.
public struct PictureDecodeRequest: Hashable, Sendable {
    public var picture: DecodedPicture
    public var sps: SequenceParameterSet
    public var pps: PictureParameterSet
    /// Reference frames in the DPB when decoding starts (VA's ReferenceFrames), in DPB order.
    public var referenceFrames: [DecodedPicture]
    /// The slices, each with its reference lists.
    public var slices: [SliceDecodeRequest]
    /// frame_num, for VA's picture parameters.
    public var frameNum: Int
}

public struct SliceDecodeRequest: Hashable, Sendable {
    public var slice: Slice
    public var lists: ReferencePictureLists
}

/// The H.264 decoding process of clause 8 for frame pictures, without VA: picture order count,
/// frame_num gaps, reference marking, reference lists, and output order through the DPB (Annex C).
///
/// Feed access units in decoding order with ``decode(_:presentationTime:)``; call ``flush()`` at the end.
/// Each call returns the events to carry out, in order. Pictures before the first IDR (or recovery point)
/// are skipped; damaged pictures are decoded where possible and marked ``DecodedPicture/isDamaged``.
public struct H264DecodingProcess: Sendable {
    public private(set) var dpb = DecodedPictureBuffer(capacity: 1)
    public private(set) var format: FormatDescription?
    private var poc = PictureOrderCount()
    private var nextID = 0
    private var decodeIndex = 0
    private var maxLongTermFrameIdx: Int?
    /// frame_num of the previous reference picture (PrevRefFrameNum, 7.4.3).
    private var prevRefFrameNum = 0
    private var hasKeyframe = false
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
        for problem in unit.problems { events.append(.problem(.bitstream(problem, byteOffset: unit.offset))) }
        guard let first = unit.slices.first else { return events }
        let header = first.header
        guard let pps = unit.parameterSets.pps[header.picParameterSetId],
              let sps = unit.parameterSets.sps[pps.seqParameterSetId] else {
            events.append(.problem(.bitstream(.missingParameterSet(kind: "PPS", id: header.picParameterSetId), byteOffset: unit.offset)))
            return events
        }
        if !sps.frameMbsOnlyFlag || header.fieldPicFlag {
            events.append(.problem(.interlacedNotSupported(byteOffset: unit.offset)))
            return events
        }
        guard sps.chromaFormatIdc == 1, sps.bitDepthLuma == 8, sps.bitDepthChroma == 8 else {
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
            if let newFormat = try? FormatDescription(parameterSets: unit.parameterSets) {
                if format.map({ newFormat.requiresNewDecoder(comparedTo: $0) }) ?? true {
                    // C.4.4 with a size change: prior pictures are output (vtk keeps every decoded picture).
                    events += translate(dpb.flush(output: true))
                    dpb = DecodedPictureBuffer(capacity: DecodedPictureBuffer.capacity(for: sps),
                                               maxNumReorderFrames: sps.vuiParametersPresentFlag && sps.vui.bitstreamRestrictionFlag ? sps.vui.maxNumReorderFrames : nil)
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

        // 7.4.3: after a reference frame, frame_num must move on; the same value again means a repeated picture.
        var repeated = false
        if !header.idrPicFlag && header.frameNum == prevRefFrameNum && decodedReferenceSinceKeyframe {
            events.append(.problem(.repeatedFrameNum(byteOffset: unit.offset, frameNum: header.frameNum)))
            repeated = true
        }

        // 8.2.5.2: gaps in frame_num.
        if !header.idrPicFlag && header.frameNum != prevRefFrameNum && header.frameNum != (prevRefFrameNum + 1) % sps.maxFrameNum {
            events += fillFrameNumGap(upTo: header.frameNum, sps: sps, offset: unit.offset)
        }

        // C.4.4: an IDR empties the DPB first.
        if header.idrPicFlag {
            let noOutput = header.decRefPicMarking?.noOutputOfPriorPicsFlag ?? false
            events += translate(dpb.flush(output: !noOutput))
            maxLongTermFrameIdx = nil
        }

        // The current picture.
        let pocResult = poc.compute(slice: header, sps: sps)
        var current = DecodedPicture(id: PictureID(rawValue: nextID), decodeIndex: decodeIndex, frameNum: header.frameNum)
        nextID += 1
        decodeIndex += 1
        current.topFieldOrderCnt = pocResult.topFieldOrderCnt
        current.bottomFieldOrderCnt = pocResult.bottomFieldOrderCnt
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

        // 8.2.4.1 then 8.2.4.2/8.2.4.3 for each slice.
        ReferencePictureMarking.updateFrameNumWrap(&dpb, currentFrameNum: header.frameNum, maxFrameNum: sps.maxFrameNum)
        var slices: [SliceDecodeRequest] = []
        for slice in unit.slices {
            let lists = ReferencePictureLists(slice: slice.header, currentPOC: current.picOrderCnt, dpb: dpb, maxFrameNum: sps.maxFrameNum)
            // Damage spreads through prediction: a picture is only as right as the pictures it refers to.
            if (lists.list0 + lists.list1).contains(where: { $0.map { ($0.isDamaged || $0.nonExisting) && $0.decodeIndex >= cleanSince } ?? false }) {
                current.isDamaged = true
            }
            if !lists.problems.isEmpty {
                current.isDamaged = true
                events.append(.problem(.missingReference(byteOffset: slice.nalUnit.offset, detail: lists.problems.joined(separator: "; "))))
            }
            slices.append(SliceDecodeRequest(slice: slice, lists: lists))
        }
        events.append(.decode(PictureDecodeRequest(picture: current, sps: sps, pps: pps, referenceFrames: dpb.referenceFrames,
                                                   slices: slices, frameNum: header.frameNum)))

        // 8.2.5: reference marking after decoding.
        if header.nalRefIdc != 0 {
            if header.idrPicFlag {
                _ = dpb.markAllUnused()
                if header.decRefPicMarking?.longTermReferenceFlag == true {
                    current.reference = .longTerm
                    current.longTermFrameIdx = 0
                    maxLongTermFrameIdx = 0
                } else {
                    current.reference = .shortTerm
                    maxLongTermFrameIdx = nil
                }
            } else {
                let marking = header.decRefPicMarking ?? DecRefPicMarking()
                if marking.adaptiveRefPicMarkingModeFlag {
                    var problems: [String] = []
                    let result = ReferencePictureMarking.adaptive(&dpb, operations: marking.operations, current: &current,
                                                                  currPicNum: header.frameNum, maxLongTermFrameIdx: maxLongTermFrameIdx,
                                                                  problems: &problems)
                    maxLongTermFrameIdx = result.maxLongTermFrameIdx
                    if !problems.isEmpty {
                        events.append(.problem(.missingReference(byteOffset: unit.offset, detail: problems.joined(separator: "; "))))
                    }
                    if result.mmco5 {
                        current.hadMMCO5 = true
                        // 8.2.1: after MMCO 5 the picture's POCs are relative to itself, and its frame_num is 0.
                        let temp = current.picOrderCnt
                        current.topFieldOrderCnt -= temp
                        current.bottomFieldOrderCnt -= temp
                        current.frameNum = 0
                        current.frameNumWrap = 0
                        // C.4.4 applies as for an IDR: prior pictures are output first.
                        events += translate(dpb.flush(output: true))
                    }
                } else {
                    ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: sps.maxNumRefFrames)
                }
                if current.reference != .longTerm { current.reference = .shortTerm }
            }
            // More references than allowed can only come from a damaged stream: apply the sliding window.
            while dpb.referenceFrames.count + 1 > max(sps.maxNumRefFrames, 1), !dpb.shortTermFrames.isEmpty {
                ReferencePictureMarking.slidingWindow(&dpb, maxNumRefFrames: sps.maxNumRefFrames)
                if dpb.referenceFrames.count + 1 > max(sps.maxNumRefFrames, 1) {
                    if let oldest = dpb.shortTermFrames.min(by: { $0.frameNumWrap < $1.frameNumWrap }) {
                        dpb.update(oldest.id) { $0.reference = .unused }
                    }
                }
            }
            prevRefFrameNum = current.hadMMCO5 ? 0 : header.frameNum
            decodedReferenceSinceKeyframe = !current.hadMMCO5
        }
        poc.pictureDecoded(pocResult, slice: header, picture: current)

        // C.4.5: store, outputting what must go first.
        events += translate(dpb.store(current))
        return events
    }

    /// Marks a picture as damaged after the fact (the decoder reported errors in it), so that pictures
    /// decoded from now on that refer to it are flagged too.
    public mutating func markDamaged(_ id: PictureID) {
        dpb.update(id) { $0.isDamaged = true }
    }

    /// Outputs everything still in the DPB (end of stream).
    public mutating func flush() -> [H264DecoderEvent] {
        translate(dpb.flush(output: true))
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

    private func translate(_ dpbEvents: [DecodedPictureBufferEvent]) -> [H264DecoderEvent] {
        dpbEvents.map { event in
            switch event {
            case .output(let picture): return picture.nonExisting ? .released(picture.id) : .output(picture)
            case .discarded(let picture): return .discarded(picture)
            case .removed(let id): return .released(id)
            }
        }
    }
}
