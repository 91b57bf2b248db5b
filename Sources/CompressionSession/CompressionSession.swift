import CLibVA
import H264Bitstream
import PixelConversion
import VideoAcceleration
import VTKMedia

/// H.264 encoding through VA-API, shaped like VideoToolbox's VTCompressionSession.
///
/// Create it with the frame size and ``CompressionProperties``; the properties are checked against what
/// the driver reports (profiles, rate-control modes, references) at once. Hand it frames in display
/// order with increasing presentation times (``encodeFrame(_:presentationTime:duration:forceKeyFrame:)``);
/// it returns the samples that became ready, oldest first, and also hands each to ``outputHandler``.
/// ``completeFrames()`` drains the frames still in flight. A refused frame changes nothing: the frames
/// before it are still delivered. Use a session from one thread at a time.
public final class CompressionSession: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let properties: CompressionProperties
    public let connection: VADisplayConnection
    /// What the driver reported for the chosen profile.
    public let capabilities: VAEncodeCapabilities
    /// SPS and PPS of the stream, known once the first frame has come back.
    public private(set) var formatDescription: FormatDescription?
    /// Pixel buffers to fill with frames for this session.
    public let pixelBufferPool: PixelBufferPool
    /// Called with each sample as it becomes ready (before the call that made it ready returns).
    public var outputHandler: ((EncodedSample) -> Void)?
    /// Samples whose IDR-ness differed from the plan (the driver ignored idr_pic_flag); 0 when all is well.
    public private(set) var keyFrameMismatches = 0

    let configuration: EncoderConfiguration
    private var planner: H264ReferencePlanner
    private var encoder: H264VAEncoder?
    /// Per frame in flight, oldest first: what its sample needs besides the coded bytes.
    private var pending: [(plan: H264ReferencePlanner.PicturePlan, presentationTime: MediaTime, duration: MediaTime)] = []
    /// Samples collected but not yet returned (a later step of the same call failed).
    private var ready: [EncodedSample] = []
    private var lastPresentationTime: MediaTime?
    private var isInvalidated = false

    /// - Parameters:
    ///   - device: the VA device; `.automatic` prefers hardware, then vtksoft.
    public convenience init(width: Int, height: Int, properties: CompressionProperties = CompressionProperties(),
                            device: VADeviceChoice = .automatic) throws(CompressionError) {
        let connection: VADisplayConnection
        do { connection = try VADisplayConnection.open(device) } catch { throw .deviceUnavailable("\(error)") }
        try self.init(width: width, height: height, properties: properties, connection: connection)
    }

    public init(width: Int, height: Int, properties: CompressionProperties = CompressionProperties(),
                connection: VADisplayConnection) throws(CompressionError) {
        var reported: VAEncodeCapabilities?
        let configuration = try EncoderConfiguration(width: width, height: height, properties: properties) { profile in
            reported = VAEncodeCapabilities.query(connection, profile: EncoderConfiguration.vaProfile(profile))
            return reported
        }
        self.width = width
        self.height = height
        self.properties = properties
        self.connection = connection
        self.capabilities = reported!
        self.configuration = configuration
        planner = H264ReferencePlanner(configuration.plannerConfiguration)
        pixelBufferPool = PixelBufferPool(width: width, height: height, capacity: configuration.framesInFlight + 1)
    }

    /// "vtksoft (vtksoft: ...)" or "/dev/dri/renderD128 (Intel iHD driver ...)".
    public var deviceDescription: String { "\(connection.devicePath) (\(connection.vendor))" }
    /// level_idc in use (chosen from Table A-1 when the properties left it open).
    public var levelIdc: Int { configuration.levelIdc }
    /// Frames the session hands to the driver before collecting the oldest.
    public var framesInFlight: Int { configuration.framesInFlight }

    /// Creates the VA configuration, context, surfaces and coded buffers now rather than at the first frame.
    public func prepareToEncodeFrames() throws(CompressionError) {
        guard !isInvalidated else { throw .invalidated }
        guard encoder == nil else { return }
        do { encoder = try H264VAEncoder(connection: connection, configuration: configuration) } catch { throw .device(error) }
    }

    /// Encodes one frame (NV12 or I420, the session's size) shown at `presentationTime` (the buffer's own
    /// time when not given) for `duration` (one frame at the expected rate when not given).
    /// - Returns: the samples that became ready, oldest first (none while the ring fills; with
    ///   ``CompressionProperties/realTime`` always this frame's).
    @discardableResult
    public func encodeFrame(_ pixelBuffer: PixelBuffer, presentationTime: MediaTime? = nil, duration: MediaTime? = nil,
                            forceKeyFrame: Bool = false) throws(CompressionError) -> [EncodedSample] {
        guard !isInvalidated else { throw .invalidated }
        try check(pixelBuffer)
        let time = presentationTime ?? pixelBuffer.presentationTime
        guard time.isNumeric else { throw .invalidTimestamp("frame \(framesSubmitted) has no numeric presentation time (\(time))") }
        if let last = lastPresentationTime, !(time > last) { throw .timestampNotIncreasing(previous: last, given: time) }
        var frameDuration = duration ?? pixelBuffer.duration
        if !frameDuration.isNumeric { frameDuration = configuration.frameDuration }
        try prepareToEncodeFrames()
        let encoder = self.encoder!

        let nv12 = pixelBuffer.format == .nv12 ? pixelBuffer : PixelConverter.convert(pixelBuffer, to: .nv12)
        let plan = planner.next(presentationTime: time, forceKeyFrame: forceKeyFrame)
        do { try encoder.submit(nv12, plan: plan) } catch { throw .device(error) }
        planner.commit(plan, presentationTime: time)
        pending.append((plan, time, frameDuration))
        lastPresentationTime = time
        framesSubmitted += 1
        if pixelBuffer.format == .nv12 { pixelBufferPool.recycle(pixelBuffer) }
        // Like FFmpeg's async_depth: with the ring full, wait for the oldest picture, so up to
        // framesInFlight - 1 stay with the driver while the caller prepares the next frame.
        while encoder.isFull { try collectOldest() }
        return takeReady()
    }

    /// Encodes every frame still in flight and returns their samples (VTCompressionSessionCompleteFrames).
    /// Encoding may go on afterwards.
    @discardableResult
    public func completeFrames() throws(CompressionError) -> [EncodedSample] {
        guard !isInvalidated else { throw .invalidated }
        while !pending.isEmpty { try collectOldest() }
        return takeReady()
    }

    /// Drops the frames in flight and releases the VA objects; every later call throws ``CompressionError/invalidated``.
    public func invalidate() {
        isInvalidated = true
        encoder = nil
        pending = []
        ready = []
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
        let picture = try CodedPicture(annexB: bytes)
        if !picture.sequenceParameterSets.isEmpty || !picture.pictureParameterSets.isEmpty {
            let sps = picture.sequenceParameterSets.isEmpty ? formatDescription?.sequenceParameterSets ?? [] : picture.sequenceParameterSets
            let pps = picture.pictureParameterSets.isEmpty ? formatDescription?.pictureParameterSets ?? [] : picture.pictureParameterSets
            do {
                let description = try FormatDescription(sequenceParameterSets: sps, pictureParameterSets: pps, nalUnitLengthSize: 4)
                if description != formatDescription { formatDescription = description }
            } catch { throw .bitstream(error) }
        }
        guard let formatDescription else { throw .driverOutput("the first coded picture carried no SPS and PPS") }
        if picture.isIDR != entry.plan.isIDR { keyFrameMismatches += 1 }
        let sample = EncodedSample(data: picture.sample, presentationTime: entry.presentationTime, decodeTime: entry.presentationTime,
                                   duration: entry.duration, isSync: picture.isIDR, frameIndex: entry.plan.index,
                                   formatDescription: formatDescription)
        outputHandler?(sample)
        ready.append(sample)
    }

    private func takeReady() -> [EncodedSample] {
        defer { ready = [] }
        return ready
    }
}
