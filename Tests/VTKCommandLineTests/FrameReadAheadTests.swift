import Testing
import VTKMedia
@testable import VTKCommandLine

/// `vtk roundtrip` reads its input on a thread of its own, ahead of the encoder (issue 28). The read-ahead
/// must hand over exactly what the source gives, in order, with its error where it happened, and never
/// read further ahead than it is allowed (a pipe is not consumed past what the run measures).
@Suite("frame read-ahead (issue 28)")
struct FrameReadAheadTests {
    /// A source of `count` 16x16 frames whose luma bytes are the frame's number, that fails at `failAt`,
    /// and counts its reads against the frames the test has taken.
    final class CountingSource: FrameSource, @unchecked Sendable {
        let width = 16, height = 16
        let frameRate = (30, 1)
        let displayName = "counting source"
        let partialFrameBytes = 7
        var fractionDone: Double? { nil }
        let count: Int
        let failAt: Int?
        // Reached from the reader thread and the test: only under the lock.
        private let counts = Locked((reads: 0, taken: 0, worstLead: 0))

        init(count: Int, failAt: Int? = nil) {
            self.count = count
            self.failAt = failAt
        }

        func next() throws(CommandFailure) -> PixelBuffer? {
            let index = counts.withLock { state -> Int in
                state.reads += 1
                state.worstLead = max(state.worstLead, state.reads - state.taken)
                return state.reads - 1
            }
            if index == failAt { throw CommandFailure(.input, "frame \(index) is damaged") }
            guard index < count else { return nil }
            var frame = PixelBuffer(format: .i420, width: width, height: height)
            frame.planes[0].bytes = [UInt8](repeating: UInt8(index), count: frame.planes[0].bytes.count)
            return frame
        }

        func took() { counts.withLock { $0.taken += 1 } }
        var reads: Int { counts.withLock { $0.reads } }
        /// The most frames ever read beyond those taken.
        var worstLead: Int { counts.withLock { $0.worstLead } }
    }

    static func drain(_ readAhead: FrameReadAhead, _ source: CountingSource) throws(CommandFailure) -> [UInt8] {
        var seen: [UInt8] = []
        while let frame = try readAhead.next() {
            source.took()
            seen.append(frame.planes[0].bytes[0])
        }
        return seen
    }

    @Test("every frame, in order, then the end and the source's partial-frame bytes")
    func framesInOrder() throws {
        let source = CountingSource(count: 40)
        let readAhead = FrameReadAhead(source, limit: nil, depth: 2)
        #expect(try Self.drain(readAhead, source) == (0..<40).map { UInt8($0) })
        #expect(try readAhead.next() == nil)
        #expect(readAhead.partialFrameBytes == 7)
        // One read per frame taken ahead of the consumer at most `depth` (+1: the read that took the lead
        // counts before the consumer's take of the one before it is recorded).
        #expect(source.worstLead <= 3, "read \(source.worstLead) frames ahead")
    }

    @Test("a read error comes out after every frame before it")
    func errorAfterEarlierFrames() {
        let source = CountingSource(count: 40, failAt: 5)
        let readAhead = FrameReadAhead(source, limit: nil)
        var seen: [UInt8] = []
        var failure: CommandFailure?
        do {
            while let frame = try readAhead.next() { seen.append(frame.planes[0].bytes[0]) }
        } catch {
            failure = error
        }
        #expect(seen == [0, 1, 2, 3, 4])
        #expect(failure?.message == "frame 5 is damaged")
        #expect(source.reads == 6)
    }

    @Test("at most `limit` frames are read from the source")
    func limitStopsReading() throws {
        let source = CountingSource(count: 40)
        let readAhead = FrameReadAhead(source, limit: 4, depth: 3)
        #expect(try Self.drain(readAhead, source) == [0, 1, 2, 3])
        #expect(source.reads == 4)
    }

    @Test("stopping early returns, and the reader reads no further")
    func stopEarly() throws {
        let source = CountingSource(count: 1000)
        let readAhead = FrameReadAhead(source, limit: nil, depth: 2)
        #expect(try readAhead.next()?.planes[0].bytes[0] == 0)
        source.took()
        readAhead.stop()
        #expect(try readAhead.next() == nil)
        #expect(source.reads <= 4, "read \(source.reads) frames after a stop")
    }
}
