import VTKMedia
import Dispatch

/// One test of a run: a stream of a suite, on one decoder.
struct SuiteResult: Sendable {
    var suite: String
    var test: String
    var decoder: String
    var status: SuiteStatus
    var seconds: Double
    /// What the decoder produced (nil when it produced nothing).
    var md5: String?
    var expectedMD5: String?
    /// On a failure: the first frame, in display order, whose MD5 differs from the suite's framemd5.
    var firstBadFrame: Int?
    var detail: String?
}

/// Runs suites on decoders: shards, runs tests in parallel, keeps the suite's order in the report.
enum SuiteRunner {
    /// A test of a suite, and where it came from.
    struct Item: Sendable {
        let suite: TestSuite
        let vector: SuiteTestVector
        var key: String { "\(suite.name)/\(vector.name)" }
    }

    /// The tests of shard `index` (from 1) of `count`: sorted by suite and test name, every count-th. So N jobs
    /// with the same suites run each test exactly once, whatever order the suite files list them in.
    static func shard(_ items: [Item], index: Int, count: Int) -> [Item] {
        let sorted = items.map(\.key).sorted()
        var mine = Set<String>()
        for (i, key) in sorted.enumerated() where i % count == index - 1 { mine.insert(key) }
        return items.filter { mine.contains($0.key) }
    }

    /// The items named by `tests` (all when empty) less those named by `skip`, by exact test-vector name
    /// (fluster's -tv and -sv). A name that matches no item is refused: a typo must not run nothing and pass.
    static func filter(_ items: [Item], tests: [String], skip: [String], command: String) throws(CommandFailure) -> [Item] {
        let names = Set(items.map(\.vector.name))
        for (option, list) in [("--test", tests), ("--skip", skip)] {
            if let unknown = list.first(where: { !names.contains($0) }) {
                let near = Suggestions.nearest(unknown, among: names.sorted()).map { " (did you mean '\($0)'?)" } ?? ""
                throw CommandFailure(.usage, "vtk \(command): \(option) \(unknown): no test vector of that name in the suite\(near)")
            }
        }
        let wanted = Set(tests), skipped = Set(skip)
        return items.filter { (wanted.isEmpty || wanted.contains($0.vector.name)) && !skipped.contains($0.vector.name) }
    }

    /// Runs every item on every decoder with `jobs` tests at a time; results in item order, then decoder order.
    static func run(_ items: [Item], decoders: [String], jobs: Int, timeout: Double,
                    progress: (@Sendable (SuiteResult, Int, Int) -> Void)?) throws(CommandFailure) -> [SuiteResult] {
        var hosts: [String: SuiteDecoderHost] = [:]  // by decoder and codec
        for spec in decoders {
            let decoder = try SuiteDecoder(spec, command: "suite run")
            for codec in Set(items.map(\.suite.codec)) { hosts["\(spec)|\(codec)"] = SuiteDecoderHost(decoder, codec: codec) }
        }
        let work = items.flatMap { item in decoders.map { (item, $0) } }
        let done = Counter()
        let frozen = hosts
        return parallelMap(work.count, jobs: jobs) { index in
            let (item, spec) = work[index]
            let codec = item.suite.codec
            guard let host = frozen["\(spec)|\(codec)"] else { preconditionFailure("a host for every decoder and codec") }
            let outcome = host.decode(item.vector, codec: codec, timeout: timeout)
            var result = SuiteResult(suite: item.suite.name, test: item.vector.name, decoder: spec, status: outcome.status,
                                     seconds: outcome.seconds, md5: outcome.md5, expectedMD5: item.vector.md5, detail: outcome.detail)
            if outcome.status == .fail, let reference = item.vector.frameMD5s {
                let frames = outcome.frameMD5s ?? host.frameMD5s(item.vector, codec: codec, timeout: timeout)
                if let frames {
                    result.firstBadFrame = firstBadFrame(reference, frames)
                    result.detail = "MD5 \(outcome.md5 ?? "?"), expected \(item.vector.md5); "
                        + firstBadFrameText(result.firstBadFrame, reference: reference, frames: frames)
                }
            }
            progress?(result, done.increment(), work.count)
            return result
        }
    }

    static func firstBadFrame(_ reference: [String], _ frames: [String]) -> Int? {
        (0..<min(reference.count, frames.count)).first { reference[$0] != frames[$0] } ?? (reference.count != frames.count ? min(reference.count, frames.count) : nil)
    }

    static func firstBadFrameText(_ index: Int?, reference: [String], frames: [String]) -> String {
        guard let index else { return "every frame's MD5 matches framemd5, yet the whole MD5 differs" }
        if index >= frames.count { return "\(frames.count) frames decoded, \(reference.count) expected" }
        if index >= reference.count { return "\(frames.count) frames decoded, only \(reference.count) expected" }
        return "frame \(index) differs first: MD5 \(frames[index]), expected \(reference[index])"
    }

    /// `body(0..<count)` on `jobs` threads, results in index order.
    static func parallelMap<T: Sendable>(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let box = ResultSlots<T>(count: count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, count)) {
            group.enter()
            let started = DetachedThread.start {
                while let index = box.take() { box.store(body(index), at: index) }
                group.leave()
            }
            if !started { group.leave() }
        }
        group.wait()
        // Whatever no thread took (the system refused every thread) runs here: no test goes missing.
        while let index = box.take() { box.store(body(index), at: index) }
        return box.values
    }
}

/// Work handed out one index at a time and the results stored by index, under one lock.
private final class ResultSlots<T: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var next = 0
    private let count: Int
    private var slots: [T?]

    init(count: Int) {
        self.count = count
        slots = Array(repeating: nil, count: count)
    }

    func take() -> Int? {
        lock.withLock {
            guard next < count else { return nil }
            next += 1
            return next - 1
        }
    }

    func store(_ value: T, at index: Int) { lock.withLock { slots[index] = value } }
    var values: [T] { lock.withLock { slots.compactMap { $0 } } }
}

private final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var value = 0
    func increment() -> Int { lock.withLock { value += 1; return value } }
}
