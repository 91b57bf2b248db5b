import DecompressionSession
import NALStream
import RTP
import VTKMedia

/// Where a receiver that records instead of decoding (`vtk receive --copy`) puts the access units.
public protocol AccessUnitRecorder: AnyObject {
    /// One access unit as it came; `ticks` is its RTP time (90 kHz) from the first frame.
    func record(_ nalUnits: [NALUnit], ticks: Int64?, isKeyframe: Bool, hasPicture: Bool) throws
}

/// The receiving end of an RTP session: its sockets (``ReceiverSockets``) feed the assembly
/// (``RTPStreamAssembler``), whose access units go to the decoder (or a recorder); ``FeedbackPolicy`` says
/// when to send receiver reports and PLIs, and ``FrameTiming`` and ``ReceptionReport`` keep the statistics.
public final class RTPReceiver<Codec: RTPCodec> {
    /// The UDP port RTP arrives on (RTCP on the next).
    public let port: Int
    private let sockets: ReceiverSockets
    private let settings: ReceiverSettings
    private let decoder: RTPPictureDecoder<Codec>
    /// Access units go here as they came, not to the decoder.
    private let recorder: (any AccessUnitRecorder)?
    private let clock: ReceiverClock
    private var assembly: RTPStreamAssembler<Codec>
    private var policy: FeedbackPolicy
    private var timing = FrameTiming()
    private var reception = ReceptionStatistics(clockRate: 90000)
    public private(set) var report = ReceptionReport()
    private let ssrc = UInt32.random(in: 1...UInt32.max)
    private var senderRTCP: SocketAddress?
    private var senderRTP: SocketAddress?
    /// The end-of-stream flush: frames decoded now waited for the stream's end, not for the network.
    private var flushing = false
    private var done = false
    private var sawBye = false
    private var deliver: ((DecodedFrame) throws -> Void)?

    /// Listens on `port` (0: the kernel picks) and `port + 1`; an SDP's payload type and parameter sets are
    /// taken at once. Errors: ``RTPSessionError``, or the recorder's.
    public init(port: Int, description: SessionDescription?, settings: ReceiverSettings, decoder: RTPPictureDecoder<Codec>,
                recorder: (any AccessUnitRecorder)? = nil, clock: ReceiverClock = SystemReceiverClock()) throws {
        self.settings = settings
        self.decoder = decoder
        self.recorder = recorder
        self.clock = clock
        assembly = RTPStreamAssembler(payloadType: description?.payloadType, latency: settings.latency, simulator: settings.simulator)
        policy = FeedbackPolicy(clock: clock)
        sockets = try ReceiverSockets(port: port)
        self.port = sockets.port
        if let description { try feed(assembly.accessUnits(description.parameterSets, damage: nil, presentation: nil), presentation: nil) }
    }

    /// Receives until BYE, the frame or time limit, the timeout or `settings.shouldStop`; each decoded frame
    /// goes to `deliver`. Errors: ``RTPSessionError``, or what `deliver` or the recorder throw.
    public func run(_ deliver: @escaping (DecodedFrame) throws -> Void) throws {
        self.deliver = deliver
        defer { self.deliver = nil }
        var lastPacket = clock.now()
        var started: Double?
        policy.start()
        while !done {
            let now = clock.now()
            var wait = min(policy.nextReport - now, lastPacket + settings.timeout - now)
            if let deadline = assembly.nextDeadline { wait = min(wait, deadline - now) }
            if let started, let duration = settings.duration { wait = min(wait, started + duration - now) }
            // Stop requests (the caller's, SIGINT/SIGTERM) are polled at least every 0.1 s.
            wait = min(wait, 0.1)
            let ready = try sockets.wait(timeout: wait)
            if ready.rtp {
                var count = 0
                while count < 4096, let datagram = try sockets.receiveRTP() {
                    count += 1
                    lastPacket = clock.now()
                    if started == nil { started = lastPacket }
                    take(datagram.bytes, from: datagram.from, at: lastPacket)
                }
            }
            if ready.rtcp { while let datagram = try sockets.receiveRTCP() { handleRTCP(datagram.bytes, from: datagram.from, at: clock.now()) } }
            if let wrongCodec = assembly.wrongCodec { throw wrongCodecError(wrongCodec) }
            let after = clock.now()
            try process(assembly.release(now: after))
            if sawBye || settings.shouldStop?() == true { break }
            if policy.takeReportDue() { sendReport(at: after) }
            if let started, let duration = settings.duration, after >= started + duration { break }
            if after - lastPacket >= settings.timeout {
                if report.packets == 0 { throw RTPSessionError(.input, "no RTP packet arrived on port \(port) in \(settings.timeout) s") }
                break
            }
        }
        flushing = true
        // What is still queued in the socket belongs to the stream: a BYE can overtake the last packets.
        if !done { while let datagram = try sockets.receiveRTP() { take(datagram.bytes, from: datagram.from, at: clock.now()) } }
        let end = clock.now()
        for intake in assembly.flushSimulator(at: end) { count(intake, at: end) }
        if !done { try process(assembly.releaseAll()) }
        if !done { try assemble(assembly.finishReceiving()) }
        if !done {
            for unit in assembly.finishAccessUnits() { try decode(unit, damage: nil, presentation: nil) }
            let frames: [DecodedFrame]
            do { frames = try decoder.finishDelayedFrames() } catch { throw RTPSessionError(.device, "\(error)") }
            try output(frames)
        }
        report.pliUnanswered = policy.unanswered
        let counts = assembly.counts
        report.late = counts.late
        report.reordered = counts.reordered
        report.duplicates = counts.duplicates
        report.lost = counts.lost
        report.simulatedDrops = counts.simulatedDrops
        report.jitterMilliseconds = reception.jitter / 90
    }

    /// Seconds between frames as the sender paces them (the smallest RTP time step seen), once two frames came.
    public var frameStep: MediaTime? { timing.frameStep }

    /// A frame's number by its RTP time (see ``FrameTiming/displayIndex(ticks:)``); nil without a time.
    public func displayIndex(_ frame: DecodedFrame) -> Int? {
        guard frame.presentationTime.isNumeric else { return nil }
        return timing.displayIndex(ticks: frame.presentationTime.value)
    }

    /// The payloads are another codec's: which option or rtpmap would have received them.
    private func wrongCodecError(_ other: String) -> RTPSessionError {
        let codec = RTPCodecs.all.first { $0.videoCodec.name == other }?.videoCodec.rtpEncodingName ?? other
        return RTPSessionError(.input, "the RTP payloads look like \(other), not \(Codec.videoCodec.name): use --codec \(codec.lowercased()) "
                               + "(or an SDP file whose rtpmap says \(codec))")
    }

    // MARK: Packets

    private func take(_ bytes: [UInt8], from: SocketAddress, at now: Double) {
        if RTPPacket.looksLikeRTCP(bytes) { handleRTCP(bytes, from: from, at: now); return }
        if bytes.count >= 4 { senderRTP = senderRTP ?? from }
        for intake in assembly.take(bytes, at: now) { count(intake, at: now) }
    }

    private func count(_ intake: RTPStreamAssembler<Codec>.Intake, at now: Double) {
        switch intake {
        case .problem(let error): problem(error)
        case .otherSource: report.otherSources += 1
        case let .accepted(sequence, timestamp, size):
            report.packets += 1
            report.bytes += size
            reception.record(sequence: sequence, timestamp: timestamp, arrival: now)
        }
    }

    private func process(_ released: [JitterBuffer.Released]) throws {
        for packet in released where !done {
            if packet.lostBefore > 0 {
                timing.noteLoss(at: policy.noteGap())
                report.lossEvents += 1
                if RTPStreamAssembler<Codec>.gapAsksKeyframe(packet) { requestKeyFrame() }
            }
            try assemble(assembly.push(packet))
        }
    }

    // MARK: RTP access units and the codec's

    /// The codec's access units of what RTP delivered, fed on to the decoder.
    private func assemble(_ received: [RTPAccessUnit]) throws {
        for unit in received where !done {
            report.frames += 1
            for problem in unit.problems { self.problem(problem) }
            let ticks = timing.noteFrame(timestamp: unit.timestamp, arrival: unit.firstArrival)
            report.frameOrigins.append((assembly.byteOffset, unit.firstSequence, unit.timestamp))
            let damage = unit.damaged ? "RTP packets of this picture were lost or unusable" : nil
            try feed(assembly.accessUnits(unit.nalUnits, damage: damage, lossBefore: unit.lossBefore, presentation: ticks), presentation: ticks)
        }
    }

    private func feed(_ assembled: [RTPStreamAssembler<Codec>.Assembled], presentation: Int64?) throws {
        for item in assembled {
            if item.keyframeDamaged { policy.keyframeDamaged() }
            if item.asksKeyframe { requestKeyFrame() }
            try decode(item.unit, damage: item.damage, presentation: presentation)
        }
    }

    private func decode(_ unit: Codec.Assembler.AccessUnit, damage: String?, presentation: Int64?) throws {
        if unit.isKeyframe && unit.isIntact {
            for answer in policy.keyframeArrived(framesReceived: report.frames) {
                report.framesFromPLIToIDR.append(answer.frames)
                report.secondsFromPLIToIDR.append(answer.seconds)
                // In frame intervals, from the loss being seen to the IDR's capture on the sender's clock (its SRs;
                // one host, one clock): a receiver that lags behind does not count the frames already on their way.
                if let presentation, let intervals = timing.intervalsFromLoss(answer.lossSeen, toFrameAt: presentation) {
                    report.intervalsFromLossToIDR.append(intervals)
                }
            }
        }
        if let recorder {
            try recorder.record(unit.nalUnits, ticks: presentation, isKeyframe: unit.isKeyframe, hasPicture: unit.hasPicture)
            if unit.hasPicture { report.framesRecorded += 1 }
            if let limit = settings.frameLimit, report.framesRecorded >= limit { done = true }
            return
        }
        let time = presentation.map { MediaTime(value: $0, timescale: 90000) } ?? .invalid
        let frames: [DecodedFrame]
        do { frames = try decoder.decode(unit, presentationTime: time) } catch {
            throw RTPSessionError(.device, "access unit at byte \(unit.offset): \(error)")
        }
        try output(frames)
    }

    private func output(_ decoded: [DecodedFrame]) throws {
        let now = clock.now()
        for frame in decoded where !done {
            report.framesDecoded += 1
            if frame.isDamaged {
                report.framesFlagged += 1
                report.flaggedIndices.append(displayIndex(frame) ?? report.framesDecoded - 1)
                requestKeyFrame()
            } else if let recovery = timing.recovered(at: now) {
                report.recoverySeconds.append(recovery)
            }
            if frame.presentationTime.isNumeric {
                let ticks = frame.presentationTime.value
                // Latency of frames the network delivered: those the end-of-stream flush releases waited for the
                // end (up to the timeout without a BYE), which no network latency is.
                if flushing {
                    timing.forget(ticks: ticks)
                } else {
                    // From the first packet's arrival, on this host's clock: always measurable. From capture, on
                    // the sender's wall clock as its SRs map RTP time to NTP: comparable with this host's only
                    // when both clocks agree (one host, or synchronised hosts).
                    let latency = timing.latencies(ofFrameAt: ticks, decodedAt: now)
                    if let value = latency.fromArrival { report.latenciesFromArrival.append(value) }
                    if let value = latency.fromCapture { report.latenciesFromSenderReports.append(value) }
                }
            }
            try deliver?(frame)
            if let limit = settings.frameLimit, report.framesDecoded >= limit { done = true }
        }
    }

    // MARK: RTCP

    private func handleRTCP(_ bytes: [UInt8], from: SocketAddress, at now: Double) {
        let packets: [RTCPPacket]
        do { packets = try RTCPPacket.parseCompound(bytes) } catch { problem(error); return }
        report.rtcpPackets += 1
        let sender = assembly.senderSSRC
        for packet in packets {
            switch packet {
            case let .senderReport(ssrc, ntp, rtpTime, _, _, _) where sender == nil || ssrc == sender:
                senderRTCP = from
                timing.noteSenderReport(unixSeconds: NTPTime.unixSeconds(ntp), rtpTimestamp: rtpTime)
                reception.recordSenderReport(ntpTime: ntp, arrival: now)
            case let .goodbye(ssrcs) where sender.map(ssrcs.contains) ?? true:
                sawBye = true
            case let .sourceDescription(ssrc, cname) where sender == nil || ssrc == sender:
                // vtk send's SRs map a frame's RTP time to the wall-clock time it was captured; FFmpeg's map the
                // wall-clock time elapsed since its first RTCP packet, which is not a frame's capture time.
                report.senderReportsGiveCaptureTime = cname == "vtk-send"
            default:
                break
            }
        }
    }

    /// RR + SDES (RFC 3550 6.1) to the sender's RTCP address: where its SRs come from, else its RTP port + 1.
    private func sendReport(at now: Double, extra: [RTCPPacket] = []) {
        guard let media = assembly.senderSSRC, let target = rtcpTarget else { return }
        let packets: [RTCPPacket] = [.receiverReport(ssrc: ssrc, reports: [reception.reportBlock(ssrc: media, now: now)]),
                                     .sourceDescription(ssrc: ssrc, cname: "vtk-receive@\(port)")] + extra
        do { try sockets.sendRTCP(packets, to: target) } catch { problem(error) }
        report.reportsSent += 1
    }

    private var rtcpTarget: SocketAddress? {
        if let senderRTCP { return senderRTCP }
        guard var address = senderRTP else { return nil }
        address.port += 1
        return address
    }

    /// RFC 4585 6.3.1: a reference picture was lost; the policy says whether to ask now.
    private func requestKeyFrame() {
        guard let media = assembly.senderSSRC, policy.shouldRequestKeyframe(framesReceived: report.frames) else { return }
        report.pliSent += 1
        sendReport(at: clock.now(), extra: [.pictureLossIndication(senderSSRC: ssrc, mediaSSRC: media)])
    }

    private func problem(_ error: RTPError) { report.note("\(error)") }
}
