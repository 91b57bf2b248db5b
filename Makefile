# vtk: the two set-up commands are `make roundtrip` and `make test` (see README.md).
# Both install the Debian packages they need when they are missing (as root), then build.

SWIFT ?= swift
# Build and link against these (libva, libyuv, and vtksoft's software codecs).
BUILD_PACKAGES := libva-dev libdrm-dev libx11-dev libxext-dev libyuv-dev libopenh264-dev libavcodec-dev libavutil-dev zlib1g-dev pkg-config
# Tests also drive third-party tools: FFmpeg (reference decoder, VA-API client), vainfo, Xvfb, GStreamer,
# mpv (VA clients that present), xwd and xdotool (screenshots and windows under Xvfb).
TEST_PACKAGES := ffmpeg vainfo xvfb gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-vaapi gstreamer1.0-plugins-bad mpv x11-apps xdotool
BENCH_PACKAGES := hyperfine time

.PHONY: all deps test-deps bench-deps build build-release test roundtrip bench clean fuzz sanitize sanitize-address sanitize-thread

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

bench: bench-deps build-release
	@mkdir -p bench-out
	.build/release/bitstream-bench --json bench-out/bitstream.json | tee bench-out/bitstream.md
	.build/release/vtk-bench --out bench-out

# Fuzzing (libFuzzer + AddressSanitizer, built with swiftc by Tools/Fuzz/build.sh): every target for
# FUZZ_SECONDS; crashes go to $(FUZZ_DIR)/crashes. Seeds come from ../shared and ffmpeg (python3 needed).
FUZZ_SECONDS ?= 60
FUZZ_DIR ?= /tmp/vtk-fuzz
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_DIR=$(FUZZ_DIR) Tools/Fuzz/run.sh

# The whole suite under AddressSanitizer, then ThreadSanitizer, each in its own build directory.
# VTK_SANITIZER makes the tests that start third-party VA clients (ffmpeg, vainfo) skip: they cannot load
# an instrumented vtksoft without the sanitizer runtime loaded first.
SANITIZE_DIR ?= /tmp/vtk-sanitize
sanitize: sanitize-address sanitize-thread

# The TSan runtime is linked statically into executables; libva dlopens vtksoft, whose __tsan_* references
# must resolve against it, so the executables export their symbols.
TSAN_LINK := -Xlinker --export-dynamic

sanitize-address: test-deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path $(SANITIZE_DIR)/address
	VTK_SANITIZER=address LSAN_OPTIONS=suppressions=$(CURDIR)/Tools/Sanitizers/lsan-suppressions.txt $(SWIFT) test --skip-build --sanitize=address --scratch-path $(SANITIZE_DIR)/address

sanitize-thread: test-deps
	$(SWIFT) build --build-tests --sanitize=thread $(TSAN_LINK) --scratch-path $(SANITIZE_DIR)/thread
	VTK_SANITIZER=thread $(SWIFT) test --skip-build --sanitize=thread $(TSAN_LINK) --scratch-path $(SANITIZE_DIR)/thread

clean:
	rm -rf .build bench-out
