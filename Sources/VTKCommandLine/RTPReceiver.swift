import DecompressionSession
import H264Bitstream
import JSONText
import RTP
import VTKMedia

struct ReceiverSettings {
    var frameLimit: Int?
    var duration: Double?
    var latency: Double = 0.05
    var timeout: Double = 10
    var simulator = LossSimulator(lossPercent: 0)
    /// Asked between packets (at least every 0.1 s when given): true ends the reception as an RTCP BYE would.
    var shouldStop: (@Sendable () -> Bool)?
}

/// The receiving end of `vtk receive`: sockets, jitter buffer, frames, decoding, RTCP, statistics; the
/// codec (its payload format, access units and session) is the decoder's.
final class RTPReceiver<Decoder: RTPPictureDecoder> {
    let port: Int
    private let rtp: UDPSocket
    private let rtcp: UDPSocket
    private var description: SessionDescription?
    private let settings: ReceiverSettings
    private let decoder: Decoder
    private let command: String
    private var simulator: LossSimulator
    private var jitter: JitterBuffer
    private var frames = FrameReceiver<Decoder.PayloadFormat>()
    private var reception = ReceptionStatistics(clockRate: 90000)
    private(set) var report = ReceiveReport()
    private let ssrc = UInt32.random(in: 1...UInt32.max)
    private var senderSSRC: UInt32?
    private var payloadType: UInt8?
    private var senderRTCP: SocketAddress?
    private var senderRTP: SocketAddress?
    /// Sender's clock: unix seconds at an RTP timestamp, from its last SR (for end-to-end latency).
    private var senderClock: (unix: Double, rtp: UInt32)?
    private var firstTimestamp: UInt32?
    private var byteOffset = 0
    private var arrivals: [Int64: Double] = [:]
    private var lastFrameTime: Int64?
    private var smallestStep: Int64?
    private var lossSeenAt: Double?
    private var waitingForIDR = false
    private var lastPLI = -Double.infinity
    /// PLIs not yet answered by an intact keyframe: when each was sent, when its loss was seen, and the
    /// frames received by then. One keyframe answers them all, and each gets its entry in the report.
    private var pendingPLIs: [(sent: Double, lossSeen: Double, framesBefore: Int)] = []
    /// The end-of-stream flush: frames decoded now waited for the stream's end, not for the network.
    private var flushing = false
    /// When the newest gap not yet answered by a PLI was seen.
    private var lastGapAt: Double?
    private var done = false
    private var sawBye = false
    /// The codec the payloads look like when it is not the one expected (an H.265 sender to an H.264 receiver).
    private var wrongCodec: String?

    /// --copy: access units go here as they came (NAL units, RTP time from the first frame), not to the decoder.
    private let recorder: StreamRecorder?

    init(port: Int, description: SessionDescription?, settings: ReceiverSettings, decoder: Decoder, recorder: StreamRecorder? = nil,
         command: String) throws(CommandFailure) {
        self.recorder = recorder
        self.description = description
        self.settings = settings
        self.decoder = decoder
        self.command = command
        simulator = settings.simulator
        jitter = JitterBuffer(latency: settings.latency)
        payloadType = description?.payloadType
        // RTCP on PORT+1 (RFC 3550 11); with port 0 the kernel picks an RTP port whose neighbour is free.
        var pair: (UDPSocket, UDPSocket)?
        var lastError: String?
        for _ in 0..<(port == 0 ? 64 : 1) {
            let first: UDPSocket
            do { first = try UDPSocket(binding: SocketAddress.resolve(host: "@", port: port)) } catch {
                lastError = "cannot listen for RTP on port \(port): \(error)"
                continue
            }
            do {
                pair = (first, try UDPSocket(binding: SocketAddress.resolve(host: "@", port: first.localPort + 1)))
                break
            } catch {
                lastError = "cannot listen for RTCP on port \(first.localPort + 1) (RTP port + 1, RFC 3550 11): \(error)"
            }
        }
        guard let pair else {
            throw CommandFailure(.input, "vtk \(command): \(lastError ?? "no free port pair for RTP and RTCP")")
        }
        (rtp, rtcp) = pair
        self.port = rtp.localPort
        if let description { for unit in description.parameterSets { try feed([unit], damaged: nil) } }
    }

    /// Receives until BYE, the frame or time limit, or the timeout; each decoded frame goes to `deliver`.
    func run(_ deliver: @escaping (DecodedFrame) throws(CommandFailure) -> Void) throws(CommandFailure) {
        self.deliver = deliver
        defer { self.deliver = nil }
        var lastPacket = WallClock.now()
        var started: Double?
        var nextReport = lastPacket + 1
        while !done {
            let now = WallClock.now()
            var wait = min(nextReport - now, lastPacket + settings.timeout - now)
            if let deadline = jitter.nextDeadline { wait = min(wait, deadline - now) }
            if let started, let duration = settings.duration { wait = min(wait, started + duration - now) }
            // Stop requests (the caller's, SIGINT/SIGTERM) are polled at least every 0.1 s.
            wait = min(wait, 0.1)
            let ready: [Bool]
            do { ready = try UDPSocket.waitReadable([rtp, rtcp], timeout: max(0, wait)) } catch {
                throw CommandFailure(.input, "vtk \(command): \(error)")
            }
            if ready[0] {
                var count = 0
                while count < 4096, let datagram = try receive(rtp) {
                    count += 1
                    lastPacket = WallClock.now()
                    if started == nil { started = lastPacket }
                    take(datagram.bytes, from: datagram.from, at: lastPacket)
                }
            }
            if ready[1] { while let datagram = try receive(rtcp) { handleRTCP(datagram.bytes, from: datagram.from, at: WallClock.now()) } }
            if let wrongCodec {
                let expected = wrongCodec == "H.265" ? "H.264" : "H.265"
                throw CommandFailure(.input, "vtk \(command): the RTP payloads look like \(wrongCodec), not \(expected): use --codec \(wrongCodec == "H.265" ? "h265" : "h264") "
                                     + "(or an SDP file whose rtpmap says \(wrongCodec == "H.265" ? "H265" : "H264"))")
            }
            let after = WallClock.now()
            try process(jitter.pop(now: after))
            if sawBye || Interruption.requested || settings.shouldStop?() == true { break }
            if after >= nextReport { sendReport(at: after); nextReport = after + 1 }
            if let started, let duration = settings.duration, after >= started + duration { break }
            if after - lastPacket >= settings.timeout {
                if report.packets == 0 { throw CommandFailure(.input, "vtk \(command): no RTP packet arrived on port \(port) in \(settings.timeout) s") }
                break
            }
        }
        flushing = true
        // What is still queued in the socket belongs to the stream: a BYE can overtake the last packets.
        if !done { while let datagram = try receive(rtp) { take(datagram.bytes, from: datagram.from, at: WallClock.now()) } }
        for datagram in simulator.flush() { insert(datagram, at: WallClock.now()) }
        if !done { try process(jitter.flush()) }
        if !done { try finishFrames(frames.finish()) }
        if !done {
            for unit in decoder.finishUnits() { try decode(unit, damage: nil) }
            do { try output(decoder.finishDelayedFrames()) } catch let failure as CommandFailure { throw failure } catch {
                throw CommandFailure(.device, "vtk \(command): \(error)")
            }
        }
        report.pliUnanswered = pendingPLIs.count
        report.late = jitter.late
        report.reordered = jitter.reordered
        report.duplicates = jitter.duplicates
        report.lost = jitter.lost
        report.simulatedDrops = simulator.dropped
        report.jitterMilliseconds = reception.jitter / 90
    }

    private var deliver: ((DecodedFrame) throws(CommandFailure) -> Void)?

    private func receive(_ socket: UDPSocket) throws(CommandFailure) -> (bytes: [UInt8], from: SocketAddress)? {
        do { return try socket.receiveNow() } catch { throw CommandFailure(.input, "vtk \(command): \(error)") }
    }

    // MARK: Packets

    private func take(_ bytes: [UInt8], from: SocketAddress, at now: Double) {
        if RTPPacket.looksLikeRTCP(bytes) { handleRTCP(bytes, from: from, at: now); return }
        guard bytes.count >= 4 else { problem(RTPError.truncated(what: "RTP packet", length: bytes.count, needed: 12)); return }
        senderRTP = senderRTP ?? from
        let sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        for datagram in simulator.process(bytes, sequence: sequence) { insert(datagram, at: now) }
    }

    private func insert(_ bytes: [UInt8], at now: Double) {
        let packet: RTPPacket
        do { packet = try RTPPacket(parsing: bytes) } catch { problem(error); return }
        if payloadType == nil, packet.payloadType >= 96 { payloadType = packet.payloadType }
        guard packet.payloadType == payloadType else {
            problem(RTPError.wrongPayloadType(got: Int(packet.payloadType), expected: Int(payloadType ?? 96)))
            return
        }
        if senderSSRC == nil { senderSSRC = packet.ssrc }
        guard packet.ssrc == senderSSRC else { report.otherSources += 1; return }
        if wrongCodec == nil, let other = Decoder.PayloadFormat.otherCodec(packet.payload) { wrongCodec = other }
        report.packets += 1
        report.bytes += bytes.count
        reception.record(sequence: jitter.extend(packet.sequenceNumber), timestamp: packet.timestamp, arrival: now)
        jitter.insert(packet, arrival: now)
    }

    private func process(_ released: [JitterBuffer.Released]) throws(CommandFailure) {
        for packet in released where !done {
            if packet.lostBefore > 0 {
                lastGapAt = WallClock.now()
                lossSeenAt = lossSeenAt ?? lastGapAt
                report.lossEvents += 1
                // Ask at once unless the packet after the gap belongs to a non-reference picture (NRI 0, RFC 6184
                // 5.3; a sub-layer non-reference NAL type, RFC 7798 1.1.4): waiting for the damaged picture to end
                // would cost up to a frame interval.
                if Decoder.PayloadFormat.mayCarryReference(packet.packet.payload) { requestKeyFrame() }
            }
            try finishFrames(frames.push(packet))
        }
    }

    // MARK: Frames and access units

    private func finishFrames(_ received: [ReceivedFrame]) throws(CommandFailure) {
        for frame in received where !done {
            report.frames += 1
            for problem in frame.problems { self.problem(problem) }
            let first = firstTimestamp ?? frame.timestamp
            firstTimestamp = first
            let extended = Int64(Int32(bitPattern: frame.timestamp &- first))
            arrivals[extended] = frame.firstArrival
            if let previous = lastFrameTime, extended != previous { smallestStep = min(smallestStep ?? .max, abs(extended - previous)) }
            lastFrameTime = extended
            report.frameOrigins.append((byteOffset, frame.firstSequence, frame.timestamp))
            var reason: String?
            if frame.damaged { reason = "RTP packets of this picture were lost or unusable" }
            try feed(frame.nalUnits, damaged: reason, lossBefore: frame.lossBefore, presentation: extended)
        }
    }

    /// NAL units of one RTP frame -> access units (the marker or a new timestamp ends one) -> decoder.
    private func feed(_ units: [[UInt8]], damaged: String?, lossBefore: Bool = false, presentation: Int64? = nil) throws(CommandFailure) {
        for bytes in units where !bytes.isEmpty {
            if let unit = decoder.push(NALUnit(bytes, offset: byteOffset)) { try decode(unit, damage: damaged, presentation: presentation) }
            byteOffset += bytes.count + 4
        }
        guard presentation != nil else { return }
        for var unit in decoder.finishUnits() {
            // Packets lost before a picture whose first slice starts at macroblock 0 were other pictures
            // (the decoder sees those as frame_num gaps) or non-VCL units; otherwise the picture lost its start.
            var reason = damaged
            if lossBefore, reason == nil, !unit.startsAtFirstSlice { reason = "RTP packets lost before this picture took its first slices" }
            // Packets lost between pictures may have been a whole reference picture: the decoder would only
            // tell at output, frames later, so the keyframe is asked for now.
            if lossBefore, reason == nil, unit.hasPicture { requestKeyFrame() }
            if let reason, unit.hasPicture {
                unit.flagDamage(reason)
                if unit.isKeyframe { waitingForIDR = false }  // the keyframe asked for came damaged: ask again at once
                if unit.isReference || unit.isKeyframe { requestKeyFrame() }
            }
            try decode(unit, damage: reason, presentation: presentation)
        }
    }

    private func decode(_ unit: Decoder.Unit, damage: String?, presentation: Int64? = nil) throws(CommandFailure) {
        if unit.isKeyframe && unit.isIntact, waitingForIDR {
            waitingForIDR = false
            for pli in pendingPLIs {
                report.framesFromPLIToIDR.append(report.frames - pli.framesBefore)
                report.secondsFromPLIToIDR.append(WallClock.now() - pli.sent)
                // In frame intervals, from the loss being seen to the IDR's capture on the sender's clock (its SRs;
                // one host, one clock): a receiver that lags behind does not count the frames already on their way.
                if let clock = senderClock, let step = smallestStep, step > 0, let first = firstTimestamp, let presentation {
                    let rtp = UInt32(truncatingIfNeeded: Int64(first) + presentation)
                    let captured = clock.unix + Double(Int32(bitPattern: rtp &- clock.rtp)) / 90000
                    report.intervalsFromLossToIDR.append((captured - pli.lossSeen) / (Double(step) / 90000))
                }
            }
            pendingPLIs = []
        }
        if let recorder {
            try recorder.record(unit.nalUnits, ticks: presentation, isKeyframe: unit.isKeyframe, hasPicture: unit.hasPicture)
            if unit.hasPicture { report.framesRecorded += 1 }
            if let limit = settings.frameLimit, report.framesRecorded >= limit { done = true }
            return
        }
        let time = presentation.map { MediaTime(value: $0, timescale: 90000) } ?? .invalid
        do { try output(decoder.decode(unit, presentationTime: time)) } catch let failure as CommandFailure { throw failure } catch {
            throw CommandFailure(.device, "vtk \(command): access unit at byte \(unit.offset): \(error)")
        }
    }

    private func output(_ decoded: [DecodedFrame]) throws(CommandFailure) {
        let now = WallClock.now()
        for frame in decoded where !done {
            report.framesDecoded += 1
            if frame.isDamaged {
                report.framesFlagged += 1
                report.flaggedIndices.append(displayIndex(frame) ?? report.framesDecoded - 1)
                requestKeyFrame()
            } else if let seen = lossSeenAt {
                report.recoverySeconds.append(now - seen)
                lossSeenAt = nil
            }
            // Latency of frames the network delivered: those the end-of-stream flush releases waited for the end
            // (up to --timeout without a BYE), which no network latency is.
            if frame.presentationTime.isNumeric, let first = firstTimestamp, !flushing {
                let ticks = frame.presentationTime.value
                // From the first packet's arrival, on this host's clock: always measurable.
                if let arrival = arrivals[ticks] { report.latenciesFromArrival.append(now - arrival) }
                // From capture, on the sender's wall clock as its SRs map RTP time to NTP: comparable with this
                // host's only when both clocks agree (one host, or synchronised hosts).
                if let clock = senderClock {
                    let rtp = UInt32(truncatingIfNeeded: Int64(first) + ticks)
                    report.latenciesFromSenderReports.append(now - (clock.unix + Double(Int32(bitPattern: rtp &- clock.rtp)) / 90000))
                }
            }
            if frame.presentationTime.isNumeric { arrivals[frame.presentationTime.value] = nil }
            try deliver?(frame)
            if let limit = settings.frameLimit, report.framesDecoded >= limit { done = true }
        }
    }

    /// Seconds between frames as the sender paces them (the smallest RTP time step seen), once two frames came.
    var frameStep: Double? { smallestStep.map { Double($0) / 90000 } }

    /// A frame's number by its time: RTP time over the smallest step between frames seen (the sender's
    /// pacing, which need not be the VUI's rate), so frames lost whole leave gaps instead of shifting the rest.
    func displayIndex(_ frame: DecodedFrame) -> Int? {
        guard frame.presentationTime.isNumeric else { return nil }
        guard let step = smallestStep, step > 0 else { return 0 }
        return Int((Double(frame.presentationTime.value) / Double(step)).rounded())
    }

    // MARK: RTCP

    private func handleRTCP(_ bytes: [UInt8], from: SocketAddress, at now: Double) {
        let packets: [RTCPPacket]
        do { packets = try RTCPPacket.parseCompound(bytes) } catch { problem(error); return }
        report.rtcpPackets += 1
        for packet in packets {
            switch packet {
            case let .senderReport(ssrc, ntp, rtpTime, _, _, _) where senderSSRC == nil || ssrc == senderSSRC:
                senderRTCP = from
                senderClock = (NTPTime.unixSeconds(ntp), rtpTime)
                reception.recordSenderReport(ntpTime: ntp, arrival: now)
            case let .goodbye(ssrcs) where senderSSRC.map(ssrcs.contains) ?? true:
                sawBye = true
            case let .sourceDescription(ssrc, cname) where senderSSRC == nil || ssrc == senderSSRC:
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
        guard let media = senderSSRC, let target = rtcpTarget else { return }
        let packets: [RTCPPacket] = [.receiverReport(ssrc: ssrc, reports: [reception.reportBlock(ssrc: media, now: now)]),
                                     .sourceDescription(ssrc: ssrc, cname: "vtk-receive@\(port)")] + extra
        do { try rtcp.send(RTCPPacket.compound(packets), to: target) } catch { problem(error) }
        report.reportsSent += 1
    }

    private var rtcpTarget: SocketAddress? {
        if let senderRTCP { return senderRTCP }
        guard var address = senderRTP else { return nil }
        address.port += 1
        return address
    }

    /// RFC 4585 6.3.1: a reference picture was lost; ask for a keyframe again only after a second.
    private func requestKeyFrame() {
        let now = WallClock.now()
        guard !waitingForIDR || now - lastPLI > 1, let media = senderSSRC else { return }
        waitingForIDR = true
        lastPLI = now
        pendingPLIs.append((now, min(lastGapAt ?? now, now), report.frames))
        lastGapAt = nil
        report.pliSent += 1
        sendReport(at: now, extra: [.pictureLossIndication(senderSSRC: ssrc, mediaSSRC: media)])
    }

    private func problem(_ error: RTPError) {
        report.problemCount += 1
        if report.problems.count < 100 { report.problems.append("\(error)") }
    }
}

/// What `vtk receive --stats` prints.
struct ReceiveReport {
    var packets = 0
    var bytes = 0
    var lost = 0
    var late = 0
    var reordered = 0
    var duplicates = 0
    var simulatedDrops = 0
    var otherSources = 0
    var lossEvents = 0
    var frames = 0
    var framesDecoded = 0
    /// --copy: pictures written without decoding.
    var framesRecorded = 0
    var framesFlagged = 0
    var flaggedIndices: [Int] = []
    var rtcpPackets = 0
    var reportsSent = 0
    var pliSent = 0
    /// PLIs that no intact keyframe answered before the end: with framesFromPLIToIDR (one entry per PLI
    /// answered), they account for every PLI sent.
    var pliUnanswered = 0
    var framesFromPLIToIDR: [Int] = []
    var secondsFromPLIToIDR: [Double] = []
    var intervalsFromLossToIDR: [Double] = []
    var recoverySeconds: [Double] = []
    var latenciesFromArrival: [Double] = []
    var latenciesFromSenderReports: [Double] = []
    /// Capture-to-decode through the sender's SRs when they were received and never put capture after
    /// decoding (clocks that disagree); else first packet's arrival to decode, this host's clock only.
    /// The sender's SRs map RTP time to capture time (vtk send's do, by its CNAME).
    var senderReportsGiveCaptureTime = false
    var latencyFromSenderReports: Bool {
        senderReportsGiveCaptureTime && !latenciesFromSenderReports.isEmpty && (latenciesFromSenderReports.min() ?? 0) >= 0
    }
    var latencies: [Double] { latencyFromSenderReports ? latenciesFromSenderReports : latenciesFromArrival }
    var latencyClocks: String {
        if latencyFromSenderReports { return "capture (sender's wall clock, by its RTCP SRs) to decoded (this host's wall clock)" }
        let note = latenciesFromSenderReports.isEmpty ? "no sender report"
            : !senderReportsGiveCaptureTime ? "the sender's SRs do not give capture times (only vtk send's are known to)"
            : "by the sender's SRs some frames were decoded before their capture: the clocks are not comparable"
        return "first packet's arrival to decoded (this host's clock; \(note))"
    }
    var jitterMilliseconds = 0.0
    var problems: [String] = []
    var problemCount = 0
    /// Where each frame's NAL units start in the decoder's byte count, and its first packet (for messages).
    var frameOrigins: [(offset: Int, sequence: UInt16, timestamp: UInt32)] = []

    /// Linear between the two nearest ranks: the 50th of an even count is the mean of the middle two.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let position = p / 100 * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down)), upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    /// "IDR after PLI: …", without empty fields.
    var pliLine: String {
        if pliSent == 0 { return "IDR after PLI: no PLI sent" }
        if framesFromPLIToIDR.isEmpty { return "IDR after PLI: \(pliSent) PLI sent, no intact IDR received after them" }
        var line = "IDR after PLI: frames received \(framesFromPLIToIDR.map(String.init).joined(separator: ","))"
        if !intervalsFromLossToIDR.isEmpty { line += ", frame intervals from the loss \(intervalsFromLossToIDR.map { String(format2: $0) }.joined(separator: ","))" }
        if pliUnanswered > 0 { line += "; \(pliUnanswered) PLI unanswered at the end" }
        return line
    }

    private func ms(_ value: Double?) -> String { value.map { String(format1: $0 * 1000) + " ms" } ?? "-" }

    var text: String {
        """
        packets: \(packets) received, \(bytes) bytes
        lost: \(lost) (simulated drops \(simulatedDrops), loss events \(lossEvents))
        late: \(late), reordered: \(reordered), duplicates: \(duplicates)
        frames: \(framesDecoded) decoded, \(framesFlagged) flagged
        rtcp: \(reportsSent) receiver reports, \(pliSent) PLI sent, jitter \(String(format2: jitterMilliseconds)) ms
        recovery: \(recoverySeconds.count) time(s), median \(ms(Self.percentile(recoverySeconds, 50))), max \(ms(recoverySeconds.max()))
        \(pliLine)
        latency: median \(ms(Self.percentile(latencies, 50))), p99 \(ms(Self.percentile(latencies, 99))), \(latencyClocks)

        """
    }

    var json: JSONValue {
        func ms(_ value: Double?) -> JSONValue { value.map { .number($0 * 1000) } ?? .null }
        return .object([
            ("packets", .int(packets)), ("bytes", .int(bytes)), ("lost", .int(lost)), ("late", .int(late)),
            ("reordered", .int(reordered)), ("duplicates", .int(duplicates)), ("simulated_drops", .int(simulatedDrops)),
            ("loss_events", .int(lossEvents)), ("frames_decoded", .int(framesDecoded)), ("frames_flagged", .int(framesFlagged)),
            ("flagged_frames", .ints(flaggedIndices)), ("receiver_reports", .int(reportsSent)), ("pli_sent", .int(pliSent)),
            ("jitter_ms", .number(jitterMilliseconds)),
            ("pli_unanswered", .int(pliUnanswered)), ("frames_from_pli_to_idr", .ints(framesFromPLIToIDR)),
            ("frame_intervals_from_loss_to_idr", .array(intervalsFromLossToIDR.map { .number($0) })),
            ("recovery_ms", .array(recoverySeconds.map { .number($0 * 1000) })),
            ("recovery_median_ms", ms(Self.percentile(recoverySeconds, 50))),
            ("latency_source", .string(latencyFromSenderReports ? "sender_reports" : "arrival")),
            ("latency_clocks", .string(latencyClocks)),
            ("latency_median_ms", ms(Self.percentile(latencies, 50))), ("latency_p99_ms", ms(Self.percentile(latencies, 99))),
            ("problems", .array(problems.prefix(20).map(JSONValue.string))),
        ])
    }
}
