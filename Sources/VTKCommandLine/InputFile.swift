#if canImport(Glibc)
import Glibc
#endif

/// A file (or standard input for "-") read in chunks, with the checks users need clear messages for:
/// missing, a directory, unreadable, empty.
final class InputFile {
    let path: String
    let size: Int?
    private let fd: Int32
    private(set) var bytesRead = 0
    /// Bytes read by ``peek(_:)`` and not yet handed out.
    private var pending: [UInt8] = []

    init(_ path: String, command: String) throws(CommandFailure) {
        self.path = path
        if path == "-" {
            fd = STDIN_FILENO
            size = nil
            return
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CommandFailure(.input, "vtk \(command): cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw CommandFailure(.input, "vtk \(command): '\(path)' is a directory, not a file")
        }
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            throw CommandFailure(.input, "vtk \(command): cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        fd = opened
        size = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        if size == 0 {
            close(fd)
            throw CommandFailure(.input, "vtk \(command): '\(path)' is empty")
        }
    }

    deinit { if fd != STDIN_FILENO { close(fd) } }

    var displayName: String { path == "-" ? "standard input" : path }

    /// The first bytes of the input (up to `count`), which later reads return again.
    func peek(_ count: Int) throws(CommandFailure) -> [UInt8] {
        if pending.count < count { pending += try readFromFile(upTo: count - pending.count) }
        return Array(pending.prefix(count))
    }

    /// Up to `count` bytes; empty at the end.
    func read(upTo count: Int = 1 << 20) throws(CommandFailure) -> [UInt8] {
        guard pending.isEmpty else {
            let out = Array(pending.prefix(count))
            pending.removeFirst(out.count)
            return out
        }
        return try readFromFile(upTo: count)
    }

    private func readFromFile(upTo count: Int) throws(CommandFailure) -> [UInt8] {
        // Read straight into uninitialised storage: no zero fill, and the pages a short read never reaches
        // are never touched (the last read of a file, or a small file, costs no page faults for the rest).
        var failure: CommandFailure?
        let chunk = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var filled = 0
            defer { initialized = filled }
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                let n = Glibc.read(fd, base + filled, count - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = CommandFailure(.input, "vtk: reading \(displayName) failed at byte \(bytesRead + filled): \(String(cString: strerror(errno)))")
                    return
                }
                if n == 0 { break }
                filled += n
            }
        }
        if let failure { throw failure }
        bytesRead += chunk.count
        return chunk
    }

    /// Fills `buffer` from the input; returns how many bytes it got (fewer only at the end of the input).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CommandFailure) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let fromPending = min(pending.count, buffer.count)
        if fromPending > 0 {
            pending.withUnsafeBytes { if let from = $0.baseAddress { base.copyMemory(from: from, byteCount: fromPending) } }
            pending.removeFirst(fromPending)
        }
        var filled = fromPending
        while filled < buffer.count {
            let n = Glibc.read(fd, base + filled, buffer.count - filled)
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandFailure(.input, "vtk: reading \(displayName) failed at byte \(bytesRead + filled): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
        }
        bytesRead += filled - fromPending
        return filled
    }

    /// Exactly `count` bytes, or fewer at the end of the input.
    func readExactly(_ count: Int) throws(CommandFailure) -> [UInt8] { try read(upTo: count) }

    var fractionDone: Double? { size.map { $0 > 0 ? Double(bytesRead) / Double($0) : 1 } }
}

/// A file (or standard output for "-") written in large pieces.
final class OutputFile {
    /// Refuses an output that is the input file (same device and inode, whatever the names): opening it
    /// for writing would empty the input before it is read. ffmpeg refuses the same way.
    static func refuseOverwriting(input: String, output: String, command: String) throws(CommandFailure) {
        guard input != "-", output != "-" else { return }
        var a = stat(), b = stat()
        guard stat(input, &a) == 0, stat(output, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino else { return }
        throw CommandFailure(.usage, "vtk \(command): output '\(output)' is the input file; refusing to overwrite it")
    }

    let path: String
    private let fd: Int32
    private(set) var bytesWritten = 0

    init(_ path: String, command: String) throws(CommandFailure) {
        self.path = path
        if path == "-" { fd = STDOUT_FILENO; return }
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw CommandFailure(.output, "vtk \(command): cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        fd = opened
    }

    deinit { if fd != STDOUT_FILENO { close(fd) } }

    /// Removes a file opened ahead of the work when the work failed before anything was written to it.
    func removeUnwritten() {
        if fd != STDOUT_FILENO, bytesWritten == 0 { unlink(path) }
    }

    /// Writes `count` rows of `rowBytes` that lie `pitch` bytes apart in memory (a mapped surface's plane), as
    /// one run of bytes: one write when the rows are contiguous, else writev of up to 1024 rows at a time.
    func write(rows: UnsafeRawPointer, pitch: Int, rowBytes: Int, count: Int) throws(CommandFailure) {
        guard count > 0, rowBytes > 0 else { return }
        if pitch == rowBytes {
            try write(UnsafeBufferPointer(start: rows.assumingMemoryBound(to: UInt8.self), count: rowBytes * count))
            return
        }
        if rowVectors.count < min(count, Self.vectorLimit) {
            rowVectors = [iovec](repeating: iovec(), count: min(count, Self.vectorLimit))
        }
        var row = 0
        while row < count {
            let batch = min(count - row, Self.vectorLimit)
            let ok = rowVectors.withUnsafeMutableBufferPointer { vectors -> Bool in
                guard let base = vectors.baseAddress else { return false }
                for i in 0..<batch {
                    vectors[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: rows + (row + i) * pitch), iov_len: rowBytes)
                }
                var first = 0, unwritten = batch * rowBytes
                while first < batch {
                    var n = writev(fd, base + first, Int32(batch - first))
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { return false }
                    // All of it (the usual case): no walk over the rows.
                    if n == unwritten { break }
                    unwritten -= n
                    // A short write: skip the rows written whole, then finish the row cut in two.
                    while first < batch, n >= vectors[first].iov_len {
                        n -= vectors[first].iov_len
                        first += 1
                    }
                    if first < batch, n > 0 {
                        vectors[first].iov_base = vectors[first].iov_base.map { $0 + n }
                        vectors[first].iov_len -= n
                    }
                }
                return true
            }
            guard ok else {
                throw CommandFailure(.output, "vtk: writing '\(path)' failed after \(bytesWritten) bytes: \(String(cString: strerror(errno)))")
            }
            bytesWritten += batch * rowBytes
            row += batch
        }
    }

    /// Rows per writev (IOV_MAX on Linux).
    private static let vectorLimit = 1024
    /// The row vectors of ``write(rows:pitch:rowBytes:count:)``, reused from call to call.
    private var rowVectors: [iovec] = []

    func write<C: Collection>(_ bytes: C) throws(CommandFailure) where C.Element == UInt8 {
        let ok: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            guard let base = buffer.baseAddress else { return true }  // nothing to write
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        if ok == nil { try write(Array(bytes)); return }
        guard ok == true else {
            throw CommandFailure(.output, "vtk: writing '\(path)' failed after \(bytesWritten) bytes: \(String(cString: strerror(errno)))")
        }
        bytesWritten += bytes.count
    }
}
