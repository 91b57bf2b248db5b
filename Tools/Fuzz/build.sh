#!/bin/sh
# Builds vtk's libFuzzer targets (libFuzzer + AddressSanitizer) with swiftc, without SwiftPM:
# each library module is compiled once, instrumented, into BUILD/<Module>.o and BUILD/<Module>.swiftmodule,
# in dependency order; each harness (Tools/Fuzz/Fuzz*.swift) is then linked against the modules it needs.
#
#   Tools/Fuzz/build.sh [BUILD_DIR]      (default /tmp/vtk-fuzz/build; FUZZ_OPT=-Onone for a debug build)
#
# Targets: fuzz-annexb fuzz-headers fuzz-avcc fuzz-mp4 fuzz-y4m fuzz-rtp fuzz-arguments fuzz-hevc fuzz-hvcc
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-/tmp/vtk-fuzz/build}
SWIFTC=${SWIFTC:-swiftc}
OPT=${FUZZ_OPT:--O}
SAN="-sanitize=fuzzer,address"
mkdir -p "$BUILD"
rebuilt=""

# module NAME SOURCE_DIR
module() {
    name=$1; dir=$2
    # Rebuild only when a source is newer than the object.
    # Rebuild when a source is newer than the object, or when a module it imports was rebuilt.
    if [ -z "$rebuilt" ] && [ -f "$BUILD/$name.o" ] && [ -z "$(find "$ROOT/$dir" -name '*.swift' -newer "$BUILD/$name.o" | head -1)" ]; then return; fi
    rebuilt=yes
    echo "fuzz: compiling module $name"
    "$SWIFTC" -parse-as-library -wmo $OPT -g $SAN -module-name "$name" -I "$BUILD" \
        -emit-module -emit-module-path "$BUILD/$name.swiftmodule" \
        -c "$ROOT/$dir"/*.swift -o "$BUILD/$name.o"
}

# target NAME HARNESS MODULES...
target() {
    name=$1; harness=$2; shift 2
    objects=""
    for m in "$@"; do objects="$objects $BUILD/$m.o"; done
    echo "fuzz: linking $name"
    # shellcheck disable=SC2086
    "$SWIFTC" -parse-as-library $OPT -g $SAN -module-name "$(echo "$name" | tr -d -)" -I "$BUILD" \
        -use-ld=lld "$ROOT/Tools/Fuzz/$harness" $objects -o "$BUILD/$name"
}

module VTKMedia Sources/VTKMedia
module NALStream Sources/NALStream
module H264Bitstream Sources/H264Bitstream
module H264Decoding Sources/H264Decoding
module H265Bitstream Sources/H265Bitstream
module H265Decoding Sources/H265Decoding
module MP4 Sources/MP4
module Y4M Sources/Y4M
module RTP Sources/RTP

target fuzz-annexb FuzzAnnexB.swift H264Decoding H264Bitstream NALStream VTKMedia
target fuzz-headers FuzzHeaders.swift H264Bitstream NALStream VTKMedia
target fuzz-avcc FuzzAVCC.swift H264Bitstream NALStream VTKMedia
target fuzz-mp4 FuzzMP4.swift MP4 H265Bitstream H264Bitstream NALStream VTKMedia
target fuzz-hevc FuzzHEVC.swift H265Decoding H265Bitstream H264Bitstream NALStream VTKMedia
target fuzz-hvcc FuzzHVCC.swift H265Bitstream NALStream VTKMedia
target fuzz-y4m FuzzY4M.swift Y4M VTKMedia
target fuzz-rtp FuzzRTP.swift RTP
# The argument parser is compiled into the harness's own module (its option helpers are internal).
echo "fuzz: linking fuzz-arguments"
"$SWIFTC" -parse-as-library $OPT -g $SAN -module-name FuzzArguments \
    "$ROOT/Tools/Fuzz/FuzzArguments.swift" "$ROOT/Sources/VTKCommandLine/ArgumentParser.swift" \
    "$ROOT/Sources/VTKCommandLine/ExitCode.swift" -use-ld=lld -o "$BUILD/fuzz-arguments"
echo "fuzz: targets in $BUILD"
