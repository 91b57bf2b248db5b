#!/bin/sh
# Builds vtk's libFuzzer targets: see Tools/Fuzz/build.py, which derives every target, module and source list
# from the harnesses' imports and Package.swift.
#
#   Tools/Fuzz/build.sh [BUILD_DIR] [fuzz-TARGET...]   (default /tmp/vtk-fuzz/build; FUZZ_OPT=-Onone for a debug build)
exec python3 "$(dirname "$0")/build.py" "$@"
