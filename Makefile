# vtk: the two set-up commands are `make roundtrip` and `make test` (see README.md).
# Both install the Debian packages they need when they are missing (as root), then build.

SWIFT ?= swift
# Build and link against these (libva, libyuv, and vtksoft's software codecs).
BUILD_PACKAGES := libva-dev libdrm-dev libx11-dev libxext-dev libyuv-dev libopenh264-dev libavcodec-dev libavutil-dev zlib1g-dev pkg-config
# Tests also drive third-party tools: FFmpeg (reference decoder, VA-API client), vainfo, Xvfb, GStreamer,
# mpv (VA clients that present), xwd and xdotool (screenshots and windows under Xvfb).
TEST_PACKAGES := ffmpeg vainfo xvfb gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-vaapi gstreamer1.0-plugins-bad mpv x11-apps xdotool
BENCH_PACKAGES := hyperfine time

.PHONY: all deps test-deps bench-deps fuzz-deps build build-release test roundtrip bench bench-smoke clean fuzz fuzz-smoke sanitize sanitize-address sanitize-thread

all: build

# Installs only what is missing; says what to do when it cannot install.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "vtk: missing Debian packages:$$missing"; \
	    echo "vtk: run 'sudo apt-get install$$missing' or run make as root"; exit 1; \
	  fi; \
	  echo "vtk: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  { apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } || \
	    { echo "vtk: apt-get could not install$$missing"; exit 1; }; \
	fi
endef

deps:
	@command -v $(SWIFT) >/dev/null || { echo "vtk: no Swift toolchain on PATH (Swift 6 from swift.org is needed)"; exit 1; }
	$(call install_missing,$(BUILD_PACKAGES))

test-deps: deps
	$(call install_missing,$(TEST_PACKAGES))

bench-deps: test-deps
	$(call install_missing,$(BENCH_PACKAGES))

build: deps
	$(SWIFT) build

build-release: deps
	$(SWIFT) build -c release

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

roundtrip: build-release
	.build/release/vtk roundtrip --psnr

# Every part runs even when one before it failed; the target fails at the end if any part did
# (vtk-bench itself goes on past a failed section and exits 1 at its end).
bench: bench-deps build-release
	@mkdir -p bench-out; status=0; \
	.build/release/bitstream-bench --json bench-out/bitstream.json > bench-out/bitstream.md || { status=1; echo "vtk: bitstream-bench failed"; }; \
	cat bench-out/bitstream.md; \
	.build/release/vtk-bench --out bench-out || { status=1; echo "vtk: vtk-bench failed (its log names the failed sections)"; }; \
	exit $$status

# The benchmark's short form, for CI: every section once, on tiny inputs made with ffmpeg (no ../shared), under a minute.
# It checks that the benchmark runs, not how fast anything is.
BENCH_SMOKE_DIR ?= bench-out/smoke
bench-smoke: bench-deps build-release
	@mkdir -p $(BENCH_SMOKE_DIR); status=0; \
	ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=176x144:rate=30 -frames:v 10 -c:v libx264 -f h264 $(BENCH_SMOKE_DIR)/tiny.264 && \
	.build/release/bitstream-bench $(BENCH_SMOKE_DIR)/tiny.264 --repetitions 1 --json $(BENCH_SMOKE_DIR)/bitstream.json > $(BENCH_SMOKE_DIR)/bitstream.md \
	  || { status=1; echo "vtk: bitstream-bench failed"; }; \
	.build/release/vtk-bench --smoke --out $(BENCH_SMOKE_DIR) > /dev/null || { status=1; echo "vtk: vtk-bench --smoke failed"; cat $(BENCH_SMOKE_DIR)/vtk-bench.md; }; \
	[ $$status = 0 ] && echo "vtk: bench-smoke passed ($(BENCH_SMOKE_DIR)/vtk-bench.md)"; \
	exit $$status

# Fuzzing (libFuzzer + AddressSanitizer, built with swiftc by Tools/Fuzz/build.sh): every target for
# FUZZ_SECONDS; crashes go to $(FUZZ_DIR)/crashes. Seeds come from ../shared and ffmpeg (python3 needed).
# The targets, modules and sources come from the harnesses' imports and Package.swift (Tools/Fuzz/build.py).
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_DIR ?= /tmp/vtk-fuzz
# python3 runs Tools/Fuzz/build.py and make_corpus.py; ffmpeg makes seed streams.
fuzz-deps: deps
	$(call install_missing,python3 ffmpeg)

fuzz: fuzz-deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_DIR=$(FUZZ_DIR) Tools/Fuzz/run.sh

# For CI: builds every fuzz target and runs each a few seconds, two at a time, so that none rots unseen.
FUZZ_SMOKE_SECONDS ?= 5
# In the checkout's own .build, so that two checkouts (two CI runs on one machine) never build into one folder.
FUZZ_SMOKE_DIR ?= $(CURDIR)/.build/fuzz-smoke
fuzz-smoke: fuzz-deps
	FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_JOBS=2 FUZZ_DIR=$(FUZZ_SMOKE_DIR) Tools/Fuzz/run.sh

# The whole suite under AddressSanitizer, then ThreadSanitizer, each in its own build directory.
# Third-party VA clients (ffmpeg, vainfo, gst-launch-1.0) load the instrumented vtksoft with the toolchain's
# shared sanitizer runtime preloaded (Tests/VTKTestSupport/Sanitizer.swift); they skip only if it is missing.
SANITIZE_DIR ?= /tmp/vtk-sanitize
sanitize: sanitize-address sanitize-thread

# The TSan runtime is linked statically into executables; libva dlopens vtksoft, whose __tsan_* references
# must resolve against it, so the executables export their symbols.
TSAN_LINK := -Xlinker --export-dynamic

# Reports name functions only if the runtime finds llvm-symbolizer, and LSan suppressions match names only.
# Tests start vtk with PATH=/nonexistent, so the runtime is given the symbolizer's path itself.
# The toolchain's own symbolizer (beside swift) reads its DWARF best; else the one on PATH.
LLVM_SYMBOLIZER ?= $(or $(wildcard $(dir $(realpath $(shell command -v $(SWIFT))))llvm-symbolizer),$(shell command -v llvm-symbolizer))
SANITIZER_SYMBOLIZE := $(if $(LLVM_SYMBOLIZER),external_symbolizer_path=$(LLVM_SYMBOLIZER))
# TSan reports a race only if it can restore the earlier access's stack from that thread's trace; with the
# default history (128K accesses) a race whose first side came before a long loop without locking is
# silently dropped. history_size=7 keeps 4M accesses per thread.
TSAN_HISTORY := history_size=7

sanitize-address: test-deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path $(SANITIZE_DIR)/address
	VTK_SANITIZER=address ASAN_OPTIONS="$(SANITIZER_SYMBOLIZE)" \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/Tools/Sanitizers/lsan-suppressions.txt \
	  $(SWIFT) test --skip-build --sanitize=address --scratch-path $(SANITIZE_DIR)/address

sanitize-thread: test-deps
	$(SWIFT) build --build-tests --sanitize=thread $(TSAN_LINK) --scratch-path $(SANITIZE_DIR)/thread
	VTK_SANITIZER=thread TSAN_OPTIONS="$(TSAN_HISTORY) $(SANITIZER_SYMBOLIZE)" \
	  $(SWIFT) test --skip-build --sanitize=thread $(TSAN_LINK) --scratch-path $(SANITIZE_DIR)/thread

clean:
	rm -rf .build bench-out
