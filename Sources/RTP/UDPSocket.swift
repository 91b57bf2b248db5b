#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address (the C sockaddr, kept whole).
public struct SocketAddress: @unchecked Sendable, CustomStringConvertible {
    // sockaddr_storage is plain bytes; the wrapper never shares a pointer into it.
    fileprivate var storage = sockaddr_storage()
    fileprivate var length: socklen_t = 0

    /// Resolves a numeric or named host (an empty host or "@" is the wildcard address).
    public static func resolve(host: String, port: Int) throws(RTPError) -> SocketAddress {
        guard (0...65535).contains(port) else { throw .address("port \(port) is not 0-65535") }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        let wildcard = host.isEmpty || host == "@"
        if wildcard { hints.ai_flags |= AI_PASSIVE; hints.ai_family = AF_INET6 }
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(wildcard ? nil : host, String(port), &hints, &result)
        guard status == 0, let info = result, let addr = info.pointee.ai_addr else {
            throw .address("cannot resolve host '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        var address = SocketAddress()
        address.length = info.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &address.storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: addr, count: Int(info.pointee.ai_addrlen))) }
        return address
    }

    public var family: Int32 { Int32(storage.ss_family) }
    public var isIPv6: Bool { family == AF_INET6 }

    public var port: Int {
        get {
            withUnsafeBytes(of: storage) { raw in
                let bytes = Array(raw)
                // sin_port and sin6_port sit at the same offset, in network order.
                return Int(bytes[2]) << 8 | Int(bytes[3])
            }
        }
        set {
            withUnsafeMutableBytes(of: &storage) { raw in
                raw[2] = UInt8((newValue >> 8) & 0xFF)
                raw[3] = UInt8(newValue & 0xFF)
            }
        }
    }

    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var copy = storage
        let status = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getnameinfo($0, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) }
        }
        return status == 0 ? String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A UDP socket: the one place vtk's RTP code meets the C socket API.
public final class UDPSocket {
    private let fd: Int32
    public let localAddress: SocketAddress

    /// Binds `address` (port 0: the kernel picks one). An IPv6 wildcard also receives IPv4.
    public init(binding address: SocketAddress, receiveBufferBytes: Int = 8 << 20) throws(RTPError) {
        let fd = socket(address.family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw .socket(call: "socket", errno: errno, detail: String(cString: strerror(errno))) }
        var off: Int32 = 0
        if address.family == AF_INET6 { _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size)) }
        // A large buffer rides out a receiver busy decoding; FORCE needs CAP_NET_ADMIN, else the capped size.
        var size = Int32(clamping: receiveBufferBytes)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var storage = address.storage
        let status = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, address.length) } }
        guard status == 0 else {
            let code = errno
            close(fd)
            let detail = code == EADDRINUSE ? "port \(address.port) is already in use" : String(cString: strerror(code))
            throw .socket(call: "bind \(address)", errno: code, detail: detail)
        }
        var bound = SocketAddress()
        bound.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &bound.length) }
        }
        self.fd = fd
        localAddress = bound
    }

    deinit { close(fd) }

    public var localPort: Int { localAddress.port }

    /// Sends one datagram; a refused destination (nobody listening yet) is not an error for RTP.
    public func send(_ bytes: [UInt8], to address: SocketAddress) throws(RTPError) {
        var storage = address.storage
        var target = address
        // An IPv4 destination from an IPv6 socket goes as a v4-mapped address.
        if localAddress.family == AF_INET6, address.family == AF_INET { target = Self.mapped(address); storage = target.storage }
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, buffer.baseAddress, buffer.count, 0, $0, target.length) } }
        }
        if sent < 0, errno != ECONNREFUSED {
            throw .socket(call: "sendto \(address)", errno: errno, detail: String(cString: strerror(errno)))
        }
    }

    /// Waits up to `timeout` seconds for a datagram.
    public func receive(timeout: Double) throws(RTPError) -> (bytes: [UInt8], from: SocketAddress)? {
        guard try Self.waitReadable([self], timeout: timeout).first == true else { return nil }
        return try receiveNow()
    }

    /// A datagram if one is queued, without waiting.
    public func receiveNow() throws(RTPError) -> (bytes: [UInt8], from: SocketAddress)? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var from = SocketAddress()
        from.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &from.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0, &from.length) }
            }
        }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNREFUSED { return nil }
            throw .socket(call: "recvfrom", errno: errno, detail: String(cString: strerror(errno)))
        }
        return (Array(buffer.prefix(count)), from)
    }

    /// Which of `sockets` have a datagram waiting, after up to `timeout` seconds.
    public static func waitReadable(_ sockets: [UDPSocket], timeout: Double) throws(RTPError) -> [Bool] {
        var fds = sockets.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
        let status = poll(&fds, nfds_t(fds.count), milliseconds)
        if status < 0, errno != EINTR { throw .socket(call: "poll", errno: errno, detail: String(cString: strerror(errno))) }
        return fds.map { $0.revents & Int16(POLLIN) != 0 }
    }

    private static func mapped(_ v4: SocketAddress) -> SocketAddress {
        var result = SocketAddress()
        withUnsafeBytes(of: v4.storage) { source in
            withUnsafeMutableBytes(of: &result.storage) { target in
                let family = UInt16(AF_INET6)
                withUnsafeBytes(of: family) { for i in 0..<2 { target[i] = $0[i] } }
                target[2] = source[2]; target[3] = source[3]  // port
                target[18] = 0xFF; target[19] = 0xFF  // ::ffff:a.b.c.d (sin6_addr at offset 8)
                for i in 0..<4 { target[20 + i] = source[4 + i] }
            }
        }
        result.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        return result
    }
}

/// Wall-clock seconds (CLOCK_REALTIME, comparable between processes on one host) and monotonic seconds.
public enum WallClock {
    public static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    public static func sleep(until deadline: Double) {
        let wait = deadline - now()
        guard wait > 0 else { return }
        var t = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - Double(Int(wait))) * 1e9))
        _ = nanosleep(&t, nil)
    }
}

/// `rtp://HOST:PORT` (send), `rtp://@:PORT` (receive on every interface), IPv6 as `rtp://[::1]:PORT`.
public struct RTPURL: Hashable, Sendable {
    public var host: String
    public var port: Int

    public init(_ text: String) throws(RTPError) {
        guard text.hasPrefix("rtp://") else { throw .address("'\(text)' is not an rtp://HOST:PORT URL") }
        var rest = Substring(text.dropFirst(6))
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let hostPart: Substring, portPart: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else {
                throw .address("'\(text)': an IPv6 host needs the form rtp://[ADDRESS]:PORT")
            }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            portPart = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else { throw .address("'\(text)' has no :PORT") }
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
        }
        guard let port = Int(portPart), (0...65535).contains(port) else { throw .address("'\(text)': port '\(portPart)' is not 0-65535") }
        host = String(hostPart)
        self.port = port
    }
}
