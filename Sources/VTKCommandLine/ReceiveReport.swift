import DecompressionSession
import JSONText
import RTPSession

/// What `vtk receive --stats` prints: the session's ``ReceptionReport``.
typealias ReceiveReport = ReceptionReport

extension ReceptionReport {
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

    /// The decoder's "byte N" (offsets in the NAL units it was fed, which mean nothing on RTP) as the RTP
    /// sequence number and timestamp of the first packet of the frame that held that byte.
    func placedInRTP(_ problem: String) -> String {
        problem.replacing(/byte (\d+)/) { match in
            guard let offset = Int(match.output.1), let origin = frameOrigins.last(where: { $0.offset <= offset }) else { return "RTP data" }
            return "the frame from RTP sequence number \(origin.sequence), timestamp \(origin.timestamp)"
        }
    }

    /// Exit 3's message when packets were lost, frames flagged or the stream had problems; nil when it was clean.
    func damage(_ statistics: DecodeStatistics, command: String) -> CommandFailure? {
        guard lost > 0 || framesFlagged > 0 || statistics.problemCount > 0 || !problems.isEmpty else { return nil }
        var message = "vtk \(command): \(lost) packet(s) lost, \(framesFlagged) of \(framesDecoded) frame(s) flagged"
        let all = problems + statistics.problems.map(placedInRTP)
        if !all.isEmpty { message += ":\n" + all.prefix(10).map { "  \($0)" }.joined(separator: "\n") }
        if all.count > 10 { message += "\n  ... and more" }
        return CommandFailure(.input, message)
    }
}
