import RTP

/// A receiver's I/O: the RTP socket and the RTCP socket on the next port (RFC 3550 11), waiting on both,
/// taking what came, and sending RTCP to the sender.
final class ReceiverSockets {
    private let rtp: UDPSocket
    private let rtcp: UDPSocket
    /// The RTP port (RTCP is on the next).
    let port: Int

    /// Binds `port` and `port + 1` on every interface; with port 0 the kernel picks an RTP port whose
    /// neighbour is free.
    init(port: Int) throws(RTPSessionError) {
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
        guard let pair else { throw RTPSessionError(.input, lastError ?? "no free port pair for RTP and RTCP") }
        (rtp, rtcp) = pair
        self.port = rtp.localPort
    }

    /// Waits up to `timeout` seconds; which of RTP and RTCP have datagrams.
    func wait(timeout: Double) throws(RTPSessionError) -> (rtp: Bool, rtcp: Bool) {
        do {
            let ready = try UDPSocket.waitReadable([rtp, rtcp], timeout: max(0, timeout))
            return (ready[0], ready[1])
        } catch {
            throw RTPSessionError(.input, "\(error)")
        }
    }

    /// A datagram waiting on the RTP port, without blocking.
    func receiveRTP() throws(RTPSessionError) -> (bytes: [UInt8], from: SocketAddress)? { try receive(rtp) }
    /// A datagram waiting on the RTCP port, without blocking.
    func receiveRTCP() throws(RTPSessionError) -> (bytes: [UInt8], from: SocketAddress)? { try receive(rtcp) }

    private func receive(_ socket: UDPSocket) throws(RTPSessionError) -> (bytes: [UInt8], from: SocketAddress)? {
        do { return try socket.receiveNow() } catch { throw RTPSessionError(.input, "\(error)") }
    }

    /// Sends an RTCP compound packet from the RTCP port.
    func sendRTCP(_ packets: [RTCPPacket], to target: SocketAddress) throws(RTPError) {
        try rtcp.send(RTCPPacket.compound(packets), to: target)
    }
}
