// libFuzzer target: the YUV4MPEG2 header line, and Y4MReader on the input as a file (header, FRAME lines,
// frame data).
#if canImport(Glibc)
import Glibc
#endif
import Y4M

private let scratchPath: String = {
    let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(dir)/vtk-fuzz-y4m-\(getpid()).y4m"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzY4M(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let line = Array(bytes.prefix { $0 != 0x0A })
    if let header = try? Y4MHeader(line: line) {
        precondition(header.width >= 1 && header.width <= Y4MHeader.maximumDimension, "width \(header.width)")
        precondition(header.height >= 1 && header.height <= Y4MHeader.maximumDimension, "height \(header.height)")
        // The header it writes parses back to itself.
        let again = try? Y4MHeader(line: Array(header.line.utf8.dropLast()))
        precondition(again == header, "Y4M header does not round-trip: \(header.line)")
    }
    let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    let input = open(scratchPath, O_RDONLY)
    guard input >= 0 else { return 0 }
    defer { close(input) }
    guard let reader = try? Y4MReader(fileDescriptor: input) else { return 0 }
    // A frame buffer is allocated before its bytes are read (the input may be a pipe): keep the fuzzer's
    // own allocations small; the header's dimension limit is what bounds it in vtk.
    guard reader.header.frameSize <= 1 << 22 else { return 0 }
    while let frame = try? reader.nextFrame() {
        precondition(frame.width == reader.header.width && frame.height == reader.header.height)
    }
    return 0
}
