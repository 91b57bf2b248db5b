#!/bin/sh
# Builds and runs every vtk fuzz target for FUZZ_SECONDS each (default 60), one after the other.
#
#   FUZZ_SECONDS=60 FUZZ_DIR=/tmp/vtk-fuzz Tools/Fuzz/run.sh [TARGET...]
#
# FUZZ_DIR holds build/ (the instrumented targets), corpus/ (seeds, rebuilt by make_corpus.py when absent),
# work/<target>/ (the corpus the fuzzer grows) and crashes/ (crash-, timeout-, oom- and leak- inputs,
# named <target>-...). Exits 1 when any target found a crash; each one should become a regression input
# under fixtures/fuzz-regressions/ (see fixtures/fuzz-regressions/README.md).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
DIR=${FUZZ_DIR:-/tmp/vtk-fuzz}
ALL="annexb headers avcc mp4 y4m rtp arguments hevc hvcc"
TARGETS=${*:-$ALL}

"$ROOT/Tools/Fuzz/build.sh" "$DIR/build"
[ -d "$DIR/corpus/rtp" ] || python3 "$ROOT/Tools/Fuzz/make_corpus.py" "$DIR/corpus"
mkdir -p "$DIR/crashes"

status=0
summary=""
for t in $TARGETS; do
    case $t in
        annexb) maxlen=16384 ;;
        mp4) maxlen=65536 ;;
        headers|avcc|y4m|rtp) maxlen=4096 ;;
        *) maxlen=1024 ;;
    esac
    mkdir -p "$DIR/work/$t"
    log="$DIR/fuzz-$t.log"
    echo "fuzz: $t for ${SECONDS_PER_TARGET}s (log $log)"
    # -timeout: an input taking more than 10 s is a hang; -rss_limit_mb: growth past 2 GiB is a failure.
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    "$DIR/build/fuzz-$t" "$DIR/work/$t" "$DIR/corpus/$t" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len=$maxlen -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$DIR/crashes/$t-" -print_final_stats=1 >"$log" 2>&1 || status=1
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    summary="$summary
  $t: $runs executions in ${SECONDS_PER_TARGET}s, $cov"
done
echo "fuzz: summary$summary"
crashes=$(ls "$DIR/crashes" 2>/dev/null | wc -l)
echo "fuzz: $crashes input(s) in $DIR/crashes"
[ "$status" = 0 ] && [ "$crashes" = 0 ] || exit 1
