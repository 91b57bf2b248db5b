import CLibVA
import H264Bitstream
import H265Bitstream
import NALStream
import PixelConversion
import VideoAcceleration
import VTKMedia

/// H.264 and H.265 encoding through VA-API, shaped like VideoToolbox's VTCompressionSession
/// (``CompressionProperties/codec``, as kCMVideoCodecType_H264 or kCMVideoCodecType_HEVC).
///
/// Create it with the frame size and ``CompressionProperties``; the properties are checked against what
/// the driver reports (entrypoints, profiles, rate-control modes, references, packed headers) at once.
/// Hand it frames in display order with increasing presentation times
/// (``encodeFrame(_:presentationTime:duration:forceKeyFrame:)``); with B-frames it holds frames until
/// their anchor arrives and codes pictures in decoding order. It returns the samples that became ready,
/// in decoding order, each with its presentation and decode time, and also hands each to
/// ``outputHandler``. ``completeFrames()`` codes and drains everything still held. A refused frame changes
/// nothing: the frames before it are still delivered. Use a session from one thread at a time: it is not
/// Sendable, so the compiler holds callers to that.
public final class CompressionSession {
    public let width: Int
    public let height: Int
    public let properties: CompressionProperties
    public let connection: VADisplayConnection
    /// What the driver reported for the chosen profile on the negotiated entrypoint.
    public let capabilities: VAEncodeCapabilities
    /// SPS and PPS of the stream: vtk's own when the driver takes packed headers, else known once the
    /// first frame has come back.
    public private(set) var formatDescription: H264FormatDescription?
    /// The samples' format description, either codec: avcC (``formatDescription``) or hvcC (VPS, SPS, PPS).
    public private(set) var sampleFormatDescription: FormatDescription?
    /// Pixel buffers to fill with frames for this session.
    public let pixelBufferPool: PixelBufferPool
    /// Called with each sample as it becomes ready (before the call that made it ready returns).
    public var outputHandler: ((SampleBuffer) -> Void)?
    /// Samples whose IDR-ness differed from the plan (the driver ignored idr_pic_flag); 0 when all is well.
    public private(set) var keyFrameMismatches = 0
    /// Where the session did less than asked, and why (B-frames off on a driver without list-1 references …).
    public var warnings: [String] { configuration.warnings }

    let configuration: EncoderConfiguration
    let headers: H264StreamHeaders
    /// The H.265 stream's headers (nil for H.264).
    let hevcHeaders: H265StreamHeaders?
    private var planner: H264GOPPlanner
    private var encoder: VAEncoder?
    /// Frames waiting to be coded (B-frames wait for their anchor), by display index.
    private var held: [Int: (buffer: PixelBuffer, duration: MediaTime, forced: Bool)] = [:]
    /// Presentation times of frames not yet given a decode time, in display order.
    private var presentationQueue: [MediaTime] = []
    /// Per picture in flight, oldest first: what its sample needs besides the coded bytes.
    private var pending: [(plan: H264GOPPlanner.PicturePlan, decodeTime: MediaTime, duration: MediaTime, forced: Bool)] = []
    /// Samples collected but not yet returned (a later step of the same call failed).
    private var ready: [SampleBuffer] = []
    private var lastPresentationTime: MediaTime?
    private var isInvalidated = false
    private var rate: H264RateSettings

    /// - Parameters:
    ///   - device: the VA device; `.automatic` picks the first that can encode, then vtksoft.
    public convenience init(width: Int, height: Int, properties: CompressionProperties = CompressionProperties(),
                            device: VADeviceChoice = .automatic) throws(CompressionError) {
        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device, for: .encode) } catch { throw .deviceUnavailable("\(error)") }
        try self.init(width: width, height: height, properties: properties, connection: connection)
    }

    public init(width: Int, height: Int, properties: CompressionProperties = CompressionProperties(),
                connection: VADisplayConnection) throws(CompressionError) {
        var reported: VAEncodeCapabilities?
        let configuration = try EncoderConfiguration(width: width, height: height, properties: properties,
                                                     driver: "\(connection.devicePath) (\(connection.vendor))") { profile in
            let vaProfile = properties.codec == .h264 ? EncoderConfiguration.vaProfile(profile) : EncoderConfiguration.vaProfile(for: properties)
            reported = VAEncodeCapabilities.query(connection, profile: vaProfile, lowPower: properties.preferLowPower)
            return reported
        }
        self.width = width
        self.height = height
        self.properties = properties
        self.connection = connection
        self.capabilities = configuration.capabilities
        self.configuration = configuration
        headers = H264StreamHeaders(configuration: configuration)
        hevcHeaders = configuration.codec == .h265 ? H265StreamHeaders(configuration: configuration) : nil
        planner = H264GOPPlanner(configuration.plannerConfiguration)
        rate = H264RateSettings(configuration: configuration)
        pixelBufferPool = PixelBufferPool(width: width, height: height, capacity: configuration.framesInFlight + configuration.bFrames + 1)
        if configuration.sendsPackedSequence {
            if let hevcHeaders {
                sampleFormatDescription = try? VideoCodec.h265.formatFromParameterSets(hevcHeaders.parameterSetNALUnits, 4)
            } else {
                formatDescription = try? H264FormatDescription(sequenceParameterSets: [headers.spsNALUnit], pictureParameterSets: [headers.ppsNALUnit])
                sampleFormatDescription = formatDescription.map { .h264($0) }
            }
        }
    }

    /// "vtksoft (vtksoft: ...)" or "/dev/dri/renderD128 (Intel iHD driver ...)".
    public var deviceDescription: String { "\(connection.devicePath) (\(connection.vendor))" }
    /// level_idc in use (chosen from Table A-1 when the properties left it open).
    public var levelIdc: Int { configuration.levelIdc }
    /// Frames the session hands to the driver before collecting the oldest.
    public var framesInFlight: Int { configuration.framesInFlight }
    /// "EncSlice" or "EncSliceLP": the entrypoint negotiated.
    public var entrypointName: String { capabilities.entrypointName }
    /// The packed headers vtk sends ("SEQUENCE|SLICE|MISC"), or "none" when the driver writes every header.
    public var packedHeadersDescription: String { VAEncodeCapabilities.packedHeaderNames(configuration.packedHeaders) }
    /// B pictures between anchors in use (0 when reordering is off or the driver cannot).
    public var bFrames: Int { configuration.bFrames }
    /// max_num_reorder_frames: how many frames the decode times run behind the presentation times.
    public var reorderDepth: Int { configuration.maxNumReorderFrames }

    /// Creates the VA configuration, context, surfaces and coded buffers now rather than at the first frame.
    public func prepareToEncodeFrames() throws(CompressionError) {
        guard !isInvalidated else { throw .invalidated }
        guard encoder == nil else { return }
        let mapper: any VAPictureMapper = hevcHeaders.map { H265PictureMapper(parameters: H265EncodeParameters(headers: $0)) }
            ?? H264PictureMapper(parameters: H264EncodeParameters(headers: headers))
        do { encoder = try VAEncoder(connection: connection, configuration: configuration, mapper: mapper) } catch { throw .device(error) }
        encoder?.update(rate: rate)
    }

    /// Changes the average bit rate (kVTCompressionPropertyKey_AverageBitRate) from the next picture coded on.
    public func setAverageBitRate(_ bitsPerSecond: Int) throws(CompressionError) {
        guard configuration.rateControl != .constantQP else { throw .unsupportedRateControl(requested: "a bit rate change", supported: ["CBR", "VBR"], driver: "a CQP session") }
        guard bitsPerSecond > 0, bitsPerSecond <= Int(UInt32.max) else { throw .invalidBitRate(bitsPerSecond) }
        if configuration.rateControl == .variableBitRate {
            // Keep the peak's ratio to the average.
            rate.bitsPerSecond = Int(Double(bitsPerSecond) * 100 / Double(rate.targetPercentage))
        } else {
            rate.bitsPerSecond = bitsPerSecond
        }
        encoder?.update(rate: rate)
    }

    /// Changes the expected frame rate (kVTCompressionPropertyKey_ExpectedFrameRate) from the next picture coded on.
    public func setExpectedFrameRate(_ framesPerSecond: Double) throws(CompressionError) {
        guard framesPerSecond.isFinite, framesPerSecond > 0, framesPerSecond <= 1000 else { throw .invalidFrameRate(framesPerSecond) }
        let fraction = EncoderConfiguration.rational(framesPerSecond)
        guard fraction.numerator < 65536, fraction.denominator < 65536 else { throw .invalidFrameRate(framesPerSecond) }
        rate.frameRate = fraction
        encoder?.update(rate: rate)
    }

    /// Encodes one frame (NV12 or I420, the session's size) shown at `presentationTime` (the buffer's own
    /// time when not given) for `duration` (one frame at the expected rate when not given); `forceKeyFrame`
    /// makes it an IDR (kVTEncodeFrameOptionKey_ForceKeyFrame).
    /// - Returns: the samples that became ready, in decoding order (none while B-frames wait or the ring
    ///   fills; with ``CompressionProperties/oneFrameInFlight`` and no B-frames always this frame's).
    @discardableResult
    public func encodeFrame(_ pixelBuffer: PixelBuffer, presentationTime: MediaTime? = nil, duration: MediaTime? = nil,
                            forceKeyFrame: Bool = false) throws(CompressionError) -> [SampleBuffer] {
        guard !isInvalidated else { throw .invalidated }
        try check(pixelBuffer)
        let time = presentationTime ?? pixelBuffer.presentationTime
        guard time.isNumeric else { throw .invalidTimestamp("frame \(framesSubmitted) has no numeric presentation time (\(time))") }
        if let last = lastPresentationTime, !(time > last) { throw .timestampNotIncreasing(previous: last, given: time) }
        var frameDuration = duration ?? pixelBuffer.duration
        if !frameDuration.isNumeric { frameDuration = configuration.frameDuration }
        try prepareToEncodeFrames()

        let surfaceFormat: PixelFormat = configuration.bitDepth > 8 ? .p010 : .nv12
        let plans = planner.push(presentationTime: time, forceKeyFrame: forceKeyFrame)
        let nv12: PixelBuffer
        if pixelBuffer.format == .i420 && surfaceFormat == .nv12 && plans.contains(where: { $0.displayIndex == framesSubmitted }) {
            nv12 = pixelBuffer  // coded now: the encoder converts it straight into the surface
        } else {
            // Converted into a buffer the pool got back from an earlier frame: no allocation per frame.
            var storage = pixelBuffer.format == surfaceFormat ? nil : pixelBufferPool.takeFree()
            nv12 = PixelConverter.convert(pixelBuffer, to: surfaceFormat, reusing: &storage)
        }
        held[framesSubmitted] = (nv12, frameDuration, forceKeyFrame)
        presentationQueue.append(time)
        lastPresentationTime = time
        framesSubmitted += 1
        try code(plans)
        return takeReady()
    }

    /// Codes every frame still held and drains the driver; returns their samples (VTCompressionSessionCompleteFrames).
    /// Encoding may go on afterwards.
    @discardableResult
    public func completeFrames() throws(CompressionError) -> [SampleBuffer] {
        guard !isInvalidated else { throw .invalidated }
        if planner.waitingFrames > 0 { try code(planner.flush()) }
        while !pending.isEmpty { try collectOldest() }
        return takeReady()
    }

    /// Submits pictures in coding order, collecting the oldest whenever the ring is full.
    private func code(_ plans: [H264GOPPlanner.PicturePlan]) throws(CompressionError) {
        guard let encoder else { return }
        for plan in plans {
            guard let frame = held.removeValue(forKey: plan.displayIndex) else { continue }
            do { try encoder.submit(frame.buffer, plan: plan) } catch { throw .device(error) }
            // Decode times run max_num_reorder_frames frames behind the presentation times, in display order,
            // so they increase and never pass the presentation time.
            let decodeTime = presentationQueue.removeFirst() - configuration.frameDuration * Int64(configuration.maxNumReorderFrames)
            pending.append((plan, decodeTime, frame.duration, frame.forced))
            if frame.buffer.format == .nv12 { pixelBufferPool.recycle(frame.buffer) }
            // Like FFmpeg's async_depth: with the ring full, wait for the oldest picture, so up to
            // framesInFlight - 1 stay with the driver while the caller prepares the next frame.
            while encoder.isFull { try collectOldest() }
        }
    }

    /// Drops the frames in flight and releases the VA objects; every later call throws ``CompressionError/invalidated``.
    public func invalidate() {
        isInvalidated = true
        encoder = nil
        pending = []
        ready = []
        held = [:]
    }

    // MARK: Internals

    /// Frames handed to the driver so far.
    public private(set) var framesSubmitted = 0

    private func check(_ buffer: PixelBuffer) throws(CompressionError) {
        guard buffer.width == width, buffer.height == height else {
            throw .frameSizeMismatch(expectedWidth: width, expectedHeight: height, width: buffer.width, height: buffer.height)
        }
        let expected = buffer.format.planeCount
        guard buffer.planes.count == expected else {
            throw .invalidPixelBuffer("\(buffer.format.rawValue) has \(expected) planes, the buffer \(buffer.planes.count)")
        }
        let rows = [buffer.height, buffer.chromaHeight, buffer.chromaHeight]
        let rowLengths = buffer.format == .nv12 ? [buffer.width, 2 * buffer.chromaWidth] : [buffer.width, buffer.chromaWidth, buffer.chromaWidth]
        for (i, plane) in buffer.planes.enumerated() {
            guard plane.rowLength >= rowLengths[i], plane.bytesPerRow >= plane.rowLength, plane.rows >= rows[i],
                  plane.bytes.count >= plane.bytesPerRow * (rows[i] - 1) + rowLengths[i] else {
                throw .invalidPixelBuffer("plane \(i) is \(plane.bytes.count) bytes (\(plane.rows) rows of \(plane.bytesPerRow)), "
                                          + "\(buffer.format.rawValue) \(buffer.width)x\(buffer.height) needs \(rows[i]) rows of \(rowLengths[i])")
            }
        }
    }

    /// Collects the oldest picture from the driver and queues its sample.
    private func collectOldest() throws(CompressionError) {
        guard let encoder, let entry = pending.first else { return }
        let bytes: [UInt8]
        do { bytes = try encoder.collectOldest() ?? [] } catch {
            pending.removeFirst()
            throw .device(error)
        }
        pending.removeFirst()
        if configuration.codec == .h265 {
            let sample = try hevcSample(bytes, entry)
            outputHandler?(sample)
            ready.append(sample)
            return
        }
        let picture = try CodedPicture(annexB: bytes)
        if !picture.sequenceParameterSets.isEmpty || !picture.pictureParameterSets.isEmpty {
            let sps = picture.sequenceParameterSets.isEmpty ? formatDescription?.sequenceParameterSets ?? [] : picture.sequenceParameterSets
            let pps = picture.pictureParameterSets.isEmpty ? formatDescription?.pictureParameterSets ?? [] : picture.pictureParameterSets
            do {
                let description = try H264FormatDescription(sequenceParameterSets: sps, pictureParameterSets: pps, nalUnitLengthSize: 4)
                if description != formatDescription {
                    formatDescription = description
                    sampleFormatDescription = .h264(description)
                }
            } catch { throw .bitstream(error) }
        }
        guard let formatDescription else { throw .driverOutput("the first coded picture carried no SPS and PPS") }
        if picture.isIDR != entry.plan.isIDR { keyFrameMismatches += 1 }
        let attachments = SampleAttachments(notSync: !picture.isIDR, dependsOnOthers: !entry.plan.isIntra,
                                            isDependedOnByOthers: entry.plan.isReference, forcedKeyFrame: entry.forced)
        let sample = SampleBuffer(data: picture.sample, framing: .lengthPrefixed(4), formatDescription: .h264(formatDescription),
                                  presentationTime: entry.plan.presentationTime, decodeTime: entry.decodeTime,
                                  duration: entry.duration, attachments: attachments)
        outputHandler?(sample)
        ready.append(sample)
    }

    /// An H.265 picture as a sample: length-prefixed, with the hvcC description of the parameter sets in
    /// front of it (vtk's own, or the driver's when it wrote them).
    private func hevcSample(_ bytes: [UInt8], _ entry: (plan: H264GOPPlanner.PicturePlan, decodeTime: MediaTime, duration: MediaTime, forced: Bool))
        throws(CompressionError) -> SampleBuffer {
        let picture = try CodedPicture(hevc: bytes)
        if !picture.hevcParameterSets.isEmpty {
            do {
                let description = try VideoCodec.h265.formatFromParameterSets(picture.hevcParameterSets, 4)
                if description != sampleFormatDescription { sampleFormatDescription = description }
            } catch { throw .bitstream(error) }
        }
        guard let sampleFormatDescription else { throw .driverOutput("the first coded picture carried no VPS, SPS and PPS") }
        if picture.isIDR != entry.plan.isIDR { keyFrameMismatches += 1 }
        let attachments = SampleAttachments(notSync: !entry.plan.isIntra, dependsOnOthers: !entry.plan.isIntra,
                                            isDependedOnByOthers: entry.plan.isReference, forcedKeyFrame: entry.forced)
        return SampleBuffer(data: picture.sample, framing: .lengthPrefixed(4), formatDescription: sampleFormatDescription,
                            presentationTime: entry.plan.presentationTime, decodeTime: entry.decodeTime,
                            duration: entry.duration, attachments: attachments)
    }

    private func takeReady() -> [SampleBuffer] {
        defer { ready = [] }
        return ready
    }
}
