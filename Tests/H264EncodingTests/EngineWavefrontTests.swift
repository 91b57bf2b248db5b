import Dispatch
import Foundation
@testable import H264Encoding
import Testing
import VTKMedia
import VTKTestSupport

/// One slice's macroblock rows coded on two threads as a wavefront (``MacroblockRowWavefront``) against the
/// same pictures coded on one: the streams and the reconstructions must be identical byte for byte, and
/// FFmpeg's decode of the wavefront's stream must equal its reconstruction. CAVLC and CABAC; I, P and B
/// (a pyramid, direct prediction, partitions, the 8x8 transform, three references); slices that start
/// and end inside a row.
@Suite("Encoder engine: macroblock rows as a wavefront")
struct EngineWavefrontTests {
    /// Content made here (FFmpeg's testsrc2 moving, 176x144: 11 macroblocks a row, 9 rows).
    static let moving = EngineHarness.testsrc2(width: 176, height: 144, frames: 5)

    static func config(cavlc: Bool, references: Int) -> EngineHarness.Config {
        var c = EngineHarness.Config()
        c.cavlc = cavlc
        c.transform8x8Mode = true
        c.referencesP = references
        c.pattern = [(.i, 0), (.p, 4), (.b, 2), (.b, 1), (.b, 3)]
        c.referenceB = [2]
        return c
    }

    @Test("Two threads code the same stream as one, and FFmpeg decodes it to the reconstruction",
          arguments: [(true, 1), (false, 1), (false, 3)])
    func sameStream(cavlc: Bool, references: Int) throws {
        for (name, frames) in [("testsrc2", Self.moving), ("Cisco", EncoderOracleTests.ciscoAll)] {
            guard !frames.isEmpty else {
                print("EngineWavefrontTests: skipping \(name): \(name == "Cisco" ? TestPaths.sharedMissingMessage : "no ffmpeg")")
                continue
            }
            var c = Self.config(cavlc: cavlc, references: references)
            c.usableProcessors = 2
            let wavefront = try EncoderOracleTests().check(frames, c)
            c.sliceConcurrency = 1
            let serial = try EngineHarness.encode(frames, c)
            #expect(wavefront.stream == serial.stream, "\(name), \(cavlc ? "CAVLC" : "CABAC"), \(references) refs: streams differ")
            #expect(EngineHarness.firstMismatch(wavefront.reconstructions, serial.reconstructions) == nil)
        }
    }

    @Test("The wavefront gives the same stream run after run, whatever the threads' timing")
    func sameStreamEveryRun() throws {
        let frames = Self.moving
        guard !frames.isEmpty else { try Test.cancel("no ffmpeg") }
        var c = Self.config(cavlc: false, references: 1)
        c.sliceConcurrency = 1
        let serial = try EngineHarness.encode(frames, c)
        c.sliceConcurrency = 2
        c.usableProcessors = 2
        for _ in 0..<5 { #expect(try EngineHarness.encode(frames, c).stream == serial.stream) }
    }

    @Test("Rows are taken in decoding order; a slice starting or ending inside a row covers exactly its macroblocks")
    func rows() {
        let wavefront = MacroblockRowWavefront(firstMb: 7, macroblockCount: 20, widthInMbs: 11)
        var taken: [Range<Int>] = []
        while let (row, addresses) = wavefront.takeRow() {
            #expect(row == taken.count)
            var seen = 0
            for mb in addresses {
                wavefront.waitForRowAbove(row, column: mb % 11, seen: &seen)  // the row above is finished: returns at once
                wavefront.finish(row, column: mb % 11)
            }
            taken.append(addresses)
        }
        #expect(taken == [7..<11, 11..<22, 22..<27])
        #expect(wavefront.isComplete)
        let untouched = MacroblockRowWavefront(firstMb: 0, macroblockCount: 22, widthInMbs: 11)
        #expect(!untouched.isComplete)
    }

    @Test("A macroblock waits for the row above to pass its top-right neighbour")
    func waitsForTopRight() throws {
        let wavefront = MacroblockRowWavefront(firstMb: 0, macroblockCount: 33, widthInMbs: 11)
        let first = try #require(wavefront.takeRow()), second = try #require(wavefront.takeRow())
        #expect(first.row == 0 && second.row == 1)
        let reached = Locked(-1)
        let done = DispatchSemaphore(value: 0)
        // A thread of its own (it blocks): not a task of the cooperative pool.
        Thread {
            var seen = 0
            wavefront.waitForRowAbove(1, column: 3, seen: &seen)  // needs row 0's columns 0...4
            reached.withLock { $0 = seen }
            done.signal()
        }.start()
        for column in 0..<4 { wavefront.finish(0, column: column) }
        // However long it is given, the waiter must not go on before column 4 is finished.
        let early = done.wait(timeout: .now() + .milliseconds(50))
        #expect(early == .timedOut, "went on before column 4 of the row above was finished (saw \(reached.withLock { $0 }))")
        wavefront.finish(0, column: 4)
        if early == .timedOut { done.wait() }
        #expect(reached.withLock { $0 } == 5)
    }
}
