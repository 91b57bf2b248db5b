import Testing
@testable import VTKCommandLine

@Suite("Argument parsing")
struct ArgumentParserTests {
    static let table: [OptionSpec] = [
        .value("-o", "--output", valueName: "FILE", help: "output"),
        .value("--qp", valueName: "N", help: "qp"),
        .flag("-q", "--quiet", help: "quiet"),
        .flag("--md5", help: "md5"),
    ]

    @Test("Values, flags, = syntax, positionals, - and --")
    func parses() throws {
        let parsed = try ArgumentParser.parse(["in.264", "-o", "out.yuv", "--qp=27", "-q", "--md5", "-", "--", "--not-an-option"],
                                              options: Self.table, command: "test")
        #expect(parsed["output"] == "out.yuv")
        #expect(parsed["qp"] == "27")
        #expect(parsed.has("quiet") && parsed.has("md5"))
        #expect(parsed.positionals == ["in.264", "-", "--not-an-option"])
    }

    @Test("Unknown options, missing values, values on flags and conflicting repeats are usage errors (exit 2)")
    func errors() {
        let cases: [([String], String)] = [
            (["--bogus"], "unknown option '--bogus'"),
            (["-o"], "-o needs a value"),
            (["--md5=yes"], "--md5 takes no value"),
            (["--qp", "20", "--qp", "30"], "--qp given twice"),
        ]
        for (arguments, message) in cases {
            #expect {
                _ = try ArgumentParser.parse(arguments, options: Self.table, command: "test")
            } throws: { error in
                guard let failure = error as? CommandFailure else { return false }
                return failure.code == .usage && failure.message.contains(message)
            }
        }
    }

    @Test("Typed values name the option and the allowed range")
    func typedValues() throws {
        let parsed = try ArgumentParser.parse(["--qp", "60"], options: Self.table, command: "test")
        let values = OptionValues(parsed: parsed, command: "test")
        #expect(throws: CommandFailure.self) { _ = try values.int("qp", range: 0...51) }
        let size = OptionValues(parsed: try ArgumentParser.parse(["--size", "0x100"], options: [.value("--size", valueName: "WxH", help: "")], command: "t"), command: "t")
        #expect(throws: CommandFailure.self) { _ = try size.size("size") }
        let good = OptionValues(parsed: try ArgumentParser.parse(["--size", "1280x720"], options: [.value("--size", valueName: "WxH", help: "")], command: "t"), command: "t")
        #expect(try good.size("size")! == (1280, 720))
        #expect(EncodeOptions.bitRate("2M") == 2_000_000)
        #expect(EncodeOptions.bitRate("500k") == 500_000)
        #expect(EncodeOptions.bitRate("1e30") == nil)
    }

    @Test("Identical planes give the documented 100 dB, never infinity or NaN")
    func psnrCap() {
        #expect(FrameQuality.psnr(squaredError: 0, samples: 100) == 100)
        #expect(FrameQuality.psnr(squaredError: 100, samples: 100) > 48 && FrameQuality.psnr(squaredError: 100, samples: 100) < 48.2)
        #expect(FrameQuality.psnr(squaredError: 0, samples: 0) == 100)
    }
}
