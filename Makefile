# vtk: the two set-up commands are `make roundtrip` and `make test` (see README.md).
# Both install the Debian packages they need when they are missing (as root), then build.

SWIFT ?= swift
# Build and link against these (libva, libyuv, and vtksoft's software codecs).
BUILD_PACKAGES := libva-dev libdrm-dev libyuv-dev libopenh264-dev libavcodec-dev libavutil-dev pkg-config
# Tests also drive third-party tools: FFmpeg (reference decoder, VA-API client), vainfo, Xvfb.
TEST_PACKAGES := ffmpeg vainfo xvfb
BENCH_PACKAGES := hyperfine time

.PHONY: all deps test-deps bench-deps build build-release test roundtrip bench clean

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

clean:
	rm -rf .build bench-out
