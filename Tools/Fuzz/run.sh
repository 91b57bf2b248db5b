#!/bin/sh
# Builds and runs every vtk fuzz target for FUZZ_SECONDS each (default 60), FUZZ_JOBS at a time (default 1).
#
#   FUZZ_SECONDS=60 FUZZ_JOBS=1 FUZZ_DIR=/tmp/vtk-fuzz Tools/Fuzz/run.sh [TARGET...]
#
# The targets are the harnesses, Tools/Fuzz/Fuzz<Name>.swift -> <name> (build.py builds them the same way).
# FUZZ_DIR holds build/ (the instrumented targets), corpus/ (seeds, rebuilt by make_corpus.py when absent),
# work/<target>/ (the corpus the fuzzer grows) and crashes/ (crash-, timeout-, oom- and leak- inputs,
# named <target>-...). Exits 1 when a target failed or left an input in crashes/; each one should become a
# regression input under fixtures/fuzz-regressions/ (see fixtures/fuzz-regressions/README.md).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
DIR=${FUZZ_DIR:-/tmp/vtk-fuzz}
ALL=$(cd "$ROOT/Tools/Fuzz" && ls Fuzz*.swift | sed 's/^Fuzz//; s/\.swift$//' | tr 'A-Z' 'a-z' | tr '\n' ' ')
TARGETS=${*:-$ALL}

# shellcheck disable=SC2086
"$ROOT/Tools/Fuzz/build.sh" "$DIR/build" $(for t in $TARGETS; do printf 'fuzz-%s ' "$t"; done)
[ -d "$DIR/corpus/rtp" ] || python3 "$ROOT/Tools/Fuzz/make_corpus.py" "$DIR/corpus"
mkdir -p "$DIR/crashes"
crashes_before=$(ls "$DIR/crashes" | wc -l)

# fuzz TARGET: runs one target; its exit status goes to $DIR/fuzz-TARGET.status.
fuzz() {
    t=$1
    case $t in
        annexb) maxlen=16384 ;;
        mp4) maxlen=65536 ;;
        headers|avcc|y4m|rtp) maxlen=4096 ;;
        *) maxlen=1024 ;;
    esac
    mkdir -p "$DIR/work/$t" "$DIR/corpus/$t"
    log="$DIR/fuzz-$t.log"
    echo "fuzz: $t for ${SECONDS_PER_TARGET}s (log $log)"
    # -timeout: an input taking more than 10 s is a hang; -rss_limit_mb: growth past 2 GiB is a failure.
    set +e
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    "$DIR/build/fuzz-$t" "$DIR/work/$t" "$DIR/corpus/$t" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len=$maxlen -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$DIR/crashes/$t-" -print_final_stats=1 >"$log" 2>&1
    echo $? >"$DIR/fuzz-$t.status"
    set -e
}

running=0
for t in $TARGETS; do
    fuzz "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait; running=0; fi
done
wait

status=0
summary=""
for t in $TARGETS; do
    log="$DIR/fuzz-$t.log"
    code=$(cat "$DIR/fuzz-$t.status" 2>/dev/null || echo "?")
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    verdict="ok"
    if [ "$code" != 0 ]; then status=1; verdict="FAILED (exit $code; see $log)"; fi
    summary="$summary
  $t: $runs executions in ${SECONDS_PER_TARGET}s, $cov: $verdict"
done
echo "fuzz: summary$summary"
crashes=$(($(ls "$DIR/crashes" | wc -l) - crashes_before))
echo "fuzz: $crashes new input(s) in $DIR/crashes"
[ "$status" = 0 ] && [ "$crashes" = 0 ] || exit 1
