// libFuzzer target: MP4Reader (boxes, sample tables, fragments, avcC) on the input written to a file, and
// every sample split into NAL units. MP4Reader reads files by offset, so the input goes to a scratch file.
#if canImport(Glibc)
import Glibc
#endif
import H264Bitstream
import MP4

private let scratchPath: String = {
    let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(dir)/vtk-fuzz-mp4-\(getpid()).mp4"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP4(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    var written = 0
    if let data {
        while written < size {
            let n = write(fd, data + written, size - written)
            if n <= 0 { break }
            written += n
        }
    }
    close(fd)
    guard let reader = try? MP4Reader(path: scratchPath) else { return 0 }
    _ = reader.format?.description
    var samples = 0
    // Every sample is inside the file, so there can be at most one per byte of the file... except
    // zero-size ones, which the sample tables bound by their own (checked) sizes.
    while let sample = try? reader.nextSample() {
        samples += 1
        _ = try? LengthPrefixedSample.nalUnits(in: sample.data, lengthSize: reader.nalUnitLengthSize)
        if samples > 100_000 { break }
    }
    return 0
}
