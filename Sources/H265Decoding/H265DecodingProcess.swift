import NALStream
import H265Bitstream
import VideoDecoding
import VTKMedia

/// What the H.265 decoding process asks of its user (the VA accelerator and the session), in order.
public typealias H265DecoderEvent = DecoderEvent<H265FormatDescription, H265PictureDecodeRequest, H265DecodedPicture, PictureID, H265DecodingProblem>

/// Everything an accelerator needs to decode one picture.
public struct H265PictureDecodeRequest: Hashable, Sendable {
    public var picture: H265DecodedPicture
    public var sps: H265SequenceParameterSet
    public var pps: H265PictureParameterSet
    /// The reference pictures in the DPB after the RPS was applied (VA's ReferenceFrames), in DPB order.
    public var referencePictures: [H265DecodedPicture]
    public var referencePictureSet: H265ReferencePictureSet
    public var slices: [H265SliceDecodeRequest]
}

public struct H265SliceDecodeRequest: Hashable, Sendable {
    public var segment: H265SliceSegment
    public var lists: H265ReferencePictureLists
}

/// The H.265 decoding process of clause 8 and the output process of C.5.2, without VA: NoRaslOutputFlag,
/// picture order count, the reference picture set and marking, reference lists, and output order.
///
/// Feed access units in decoding order with ``decode(_:presentationTime:)``; call ``flush()`` at the end.
/// Decoding starts at the first IRAP picture; the RASL pictures of a CRA or BLA picture it starts at (or
/// after an end of sequence) are skipped and reported.
public struct H265DecodingProcess: Sendable {
    public private(set) var dpb = H265DecodedPictureBuffer(capacity: 1, maxNumReorder: 0, maxLatency: nil)
    public private(set) var format: H265FormatDescription?
    private var poc = H265PictureOrderCount()
    private var nextID = 0
    private var decodeIndex = 0
    private var hasIRAP = false
    /// The next picture starts a coded video sequence (start of stream, or after an end of sequence NAL unit).
    private var firstAfterEndOfSequence = true
    /// NoRaslOutputFlag of the last IRAP picture: its RASL pictures are skipped when set.
    private var skipRASL = false
    /// The unsupported feature last reported, so that a stream is refused in one line, not once a picture.
    private var reportedUnsupported: String?

    public init() {}

    /// Runs the decoding process on one access unit; an end of sequence or bitstream NAL unit in it then
    /// outputs and releases everything decoded (7.4.3.6: the next picture starts a coded video sequence).
    public mutating func decode(_ unit: H265AccessUnit, presentationTime: MediaTime = .invalid) -> [H265DecoderEvent] {
        var events = decodePicture(unit, presentationTime: presentationTime)
        // Not a `defer`: a deferred `events +=` runs after `return events` has copied the array, and the
        // output and release of every picture in the DPB would be lost.
        if unit.endsSequence { events += endSequence() }
        return events
    }

    private mutating func decodePicture(_ unit: H265AccessUnit, presentationTime: MediaTime) -> [H265DecoderEvent] {
        var events: [H265DecoderEvent] = unit.problems.map { .problem(.bitstream($0, byteOffset: unit.offset)) }
        guard let first = unit.slices.first else { return events }
        let header = first.header
        guard first.header.firstSliceSegmentInPicFlag else {
            events.append(.problem(.bitstream(.malformedNALUnit(byteOffset: first.nalUnit.offset, reason: "picture without its first slice segment"),
                                              byteOffset: unit.offset)))
            return events
        }
        guard let pps = unit.parameterSets.pps[header.picParameterSetId], let sps = unit.parameterSets.sps[pps.seqParameterSetId] else {
            events.append(.problem(.bitstream(.missingParameterSet(kind: "PPS", id: header.picParameterSetId), byteOffset: unit.offset)))
            return events
        }
        if let reason = Self.unsupported(sps: sps, pps: pps) {
            if reportedUnsupported != reason { events.append(.problem(.unsupportedStream(reason))) }
            reportedUnsupported = reason
            return events
        }
        reportedUnsupported = nil
        let type = header.nalUnitType

        // 8.1.3: NoRaslOutputFlag of an IRAP picture.
        var noRaslOutputFlag = false
        if type.isIRAP {
            noRaslOutputFlag = type.isIDR || type.isBLA || firstAfterEndOfSequence || !hasIRAP
            hasIRAP = true
            skipRASL = noRaslOutputFlag && !type.isIDR
            firstAfterEndOfSequence = false
        } else if !hasIRAP {
            events.append(.problem(.waitingForKeyframe(byteOffset: unit.offset)))
            return events
        }
        let pocValue = poc.compute(header, sps: sps, noRaslOutputFlag: noRaslOutputFlag)
        if type.isRASL && skipRASL {
            events.append(.problem(.skippedRASL(byteOffset: unit.offset, poc: pocValue)))
            return events
        }

        // A new sequence, and a new decoder when the format needs one.
        if type.isIRAP && noRaslOutputFlag || format == nil {
            if let newFormat = try? H265FormatDescription(parameterSets: unit.parameterSets) {
                if format.map({ newFormat.requiresNewDecoder(comparedTo: $0) }) ?? true {
                    events += translate(dpb.flush(output: true))
                    dpb = H265DecodedPictureBuffer(capacity: sps.maxDecPicBuffering, maxNumReorder: sps.highestMaxNumReorderPics,
                                                   maxLatency: sps.maxLatencyPictures)
                    events.append(.newSequence(newFormat, dpbCapacity: dpb.capacity))
                }
                format = newFormat
            }
        }

        // 8.3.2 (after the first slice segment header), then C.5.2.2.
        let rps = H265ReferencePictureSet.apply(header, poc: pocValue, sps: sps, dpb: &dpb)
        if type.isIRAP && noRaslOutputFlag && decodeIndex > 0 {
            // C.5.2.2: a CRA starting a sequence drops prior pictures; vtk outputs them, as FFmpeg does, since
            // they were decoded before the end of sequence.
            events += translate(dpb.flush(output: !header.noOutputOfPriorPicsFlag || type.isCRA))
            // C.5.2.2: the new sequence bumps by its own SPS's reorder and latency limits (a new DPB size made a new
            // DPB above, since it needs a new decoder).
            dpb.rules = H265BufferRules(maxNumReorder: sps.highestMaxNumReorderPics, maxLatency: sps.maxLatencyPictures)
        } else {
            events += translate(dpb.makeRoom())
        }

        var current = H265DecodedPicture(id: PictureID(rawValue: nextID), decodeIndex: decodeIndex, poc: pocValue, nalUnitType: type)
        nextID += 1
        decodeIndex += 1
        current.temporalID = header.temporalID
        current.presentationTime = presentationTime
        current.isDamaged = !unit.problems.isEmpty
        if !rps.missing.isEmpty {
            current.isDamaged = true
            events.append(.problem(.missingReference(byteOffset: unit.offset, detail: "POC \(rps.missing.map(String.init).joined(separator: ", "))")))
        }
        let usedIDs = Set((rps.stCurrBefore + rps.stCurrAfter + rps.ltCurr).compactMap { $0 })
        if dpb.pictures.contains(where: { usedIDs.contains($0.id) && $0.isDamaged }) { current.isDamaged = true }

        var slices: [H265SliceDecodeRequest] = []
        for segment in unit.slices {
            slices.append(H265SliceDecodeRequest(segment: segment, lists: H265ReferencePictureLists(slice: segment.header, rps: rps)))
        }
        events.append(.decode(H265PictureDecodeRequest(picture: current, sps: sps, pps: pps, referencePictures: dpb.referencePictures,
                                                       referencePictureSet: rps, slices: slices)))
        // C.5.2.3: the current picture is a short-term reference, output when PicOutputFlag is 1.
        current.reference = .shortTerm
        current.neededForOutput = header.picOutputFlag
        events += translate(dpb.store(current))
        return events
    }

    /// Marks a picture as damaged after the fact (the driver reported errors in it).
    public mutating func markDamaged(_ id: PictureID) {
        dpb.update(id) { $0.isDamaged = true }
    }

    /// Outputs everything still in the DPB (end of stream).
    public mutating func flush() -> [H265DecoderEvent] {
        translate(dpb.flush(output: true))
    }

    /// An end of sequence NAL unit: what is decoded is output; the next picture is an IRAP with NoRaslOutputFlag.
    private mutating func endSequence() -> [H265DecoderEvent] {
        firstAfterEndOfSequence = true
        return translate(dpb.flush(output: true))
    }

    /// MaxLumaPs of the largest level, 6.2 (Table A.8): no conforming stream has bigger pictures.
    public static let maxLumaPictureSize = 35_651_584

    /// Why vtk cannot decode a stream with these parameter sets, or nil (A.3: Main and Main 10, 4:2:0).
    public static func unsupported(sps: H265SequenceParameterSet, pps: H265PictureParameterSet) -> String? {
        if sps.chromaFormatIdc != 1 { return "H.265 chroma_format_idc \(sps.chromaFormatIdc) (\(["4:0:0", "4:2:0", "4:2:2", "4:4:4"][sps.chromaFormatIdc])); vtk decodes 4:2:0" }
        if sps.bitDepthLuma > 10 || sps.bitDepthChroma != sps.bitDepthLuma {
            return "H.265 \(sps.bitDepthLuma)-bit luma, \(sps.bitDepthChroma)-bit chroma; vtk decodes 8 and 10 bits"
        }
        if sps.rangeExtension.usesAny || pps.usesRangeExtension { return "H.265 range extension tools" }
        if sps.extensionFlags.scc || pps.extensionFlags.scc { return "H.265 screen content coding (SCC)" }
        if sps.extensionFlags.multilayer || sps.extensionFlags.threeD || pps.extensionFlags.multilayer || pps.extensionFlags.threeD {
            return "H.265 multi-layer or 3D extensions"
        }
        if sps.separateColourPlaneFlag { return "H.265 separate colour planes" }
        let samples = sps.picWidthInLumaSamples * sps.picHeightInLumaSamples
        if samples > maxLumaPictureSize {
            return "a \(sps.picWidthInLumaSamples)x\(sps.picHeightInLumaSamples) picture is larger than any H.265 level allows (MaxLumaPs \(maxLumaPictureSize), level 6.2)"
        }
        return nil
    }

    private func translate(_ events: [H265DecodedPictureBuffer.Event]) -> [H265DecoderEvent] {
        events.map(H265DecoderEvent.init)
    }
}
