import RTP
@testable import RTPSession
import Testing

/// The receiver's I/O on loopback, on ports the kernel picks.
@Suite("Receiver sockets")
struct ReceiverSocketsTests {
    @Test("RTP and RTCP on adjacent ports; datagrams on each are told apart; a busy RTCP port is named as RTCP")
    func adjacentPorts() throws {
        let sockets = try ReceiverSockets(port: 0)
        let sender = try UDPSocket(binding: SocketAddress.resolve(host: "127.0.0.1", port: 0))
        try sender.send([1, 2, 3], to: SocketAddress.resolve(host: "127.0.0.1", port: sockets.port + 1))
        let ready = try sockets.wait(timeout: 5)
        #expect(ready.rtcp && !ready.rtp)
        #expect(try sockets.receiveRTCP()?.bytes == [1, 2, 3])
        #expect(try sockets.receiveRTP() == nil, "nothing waits on RTP: no blocking")

        // A second receiver on the same port cannot have its RTP port, and says which.
        #expect(throws: RTPSessionError.self) { try ReceiverSockets(port: sockets.port) }
        let holder = try UDPSocket(binding: SocketAddress.resolve(host: "@", port: 0))
        let rtp = holder.localPort - 1
        do {
            _ = try ReceiverSockets(port: rtp)
        } catch {
            // The RTP port may be taken by someone else too; when it was free, the RTCP port is the one named.
            if !error.message.contains("RTP on port") { #expect(error.message.contains("RTCP on port \(holder.localPort)"), "\(error)") }
        }
    }
}
