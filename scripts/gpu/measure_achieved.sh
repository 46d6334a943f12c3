#!/usr/bin/env bash
# The H200 measurements of docs/ACHIEVED.md, in one run on the GPU machine:
#
#   scripts/gpu/measure_achieved.sh BIN_DIR LINT_DIR OUT_DIR
#
# BIN_DIR: the examples' release binaries (target/release/examples/<name>); LINT_DIR: what
# `lint_effect.py build` wrote. Writes into OUT_DIR one tarball per step (what finished
# comes back even if a later step runs out of time) and log.txt:
#
#   1. examples.tar.gz: every launch of the eight examples under Nsight Compute
#      (LaunchStats + Occupancy, CSV on stdout as ncu prints it, the program's output
#      interleaved), and saxpy also through --log-file and through a saved report
#      re-exported with --import, to compare the three layouts;
#   2. smem_config.tar.gz: smem_config.py's launches under ncu, with its plan;
#   3. lint_effect.tar.gz: lint_effect.py's timings, then its launches under ncu.
set -u
BIN=$(realpath "$1"); LINT=$(realpath "$2"); OUT=$(realpath "$3")
HERE=$(dirname "$(realpath "$0")")
W=$(mktemp -d)
NCU=(ncu --clock-control none --section LaunchStats --section Occupancy)
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/log.txt"; }

log "start"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; ncu --version; python3 --version; } \
    >> "$OUT/log.txt" 2>&1

mkdir -p "$W/examples"
for e in saxpy reduce sgemm softmax layernorm transpose histogram conv2d; do
    (cd "$BIN" && timeout 45 "${NCU[@]}" --csv "./$e" > "$W/examples/$e.csv" 2> "$W/examples/$e.stderr")
    log "example $e: rc $? $(grep -c '^"' "$W/examples/$e.csv") CSV lines"
done
(cd "$BIN" && timeout 45 "${NCU[@]}" --csv --log-file "$W/examples/saxpy.logfile.csv" ./saxpy \
    > "$W/examples/saxpy.logfile.stdout" 2>&1)
log "saxpy --log-file: rc $?"
(cd "$BIN" && timeout 45 "${NCU[@]}" -o "$W/examples/saxpy" ./saxpy > "$W/examples/saxpy.export.stdout" 2>&1 \
    && ncu --import "$W/examples/saxpy.ncu-rep" --csv > "$W/examples/saxpy.import.csv" 2>&1)
log "saxpy -o / --import: rc $?"
tar -C "$W" -czf "$OUT/examples.tar.gz" examples
log "examples done"

mkdir -p "$W/smem_config"
timeout 180 "${NCU[@]}" --csv python3 "$HERE/smem_config.py" --plan "$W/smem_config/plan.tsv" \
    > "$W/smem_config/smem_config.csv" 2> "$W/smem_config/stderr.txt"
log "smem_config: rc $? $(grep -c '^"' "$W/smem_config/smem_config.csv") CSV lines"
tar -C "$W" -czf "$OUT/smem_config.tar.gz" smem_config
log "smem_config done"

mkdir -p "$W/lint_effect"
timeout 100 python3 "$HERE/lint_effect.py" time --dir "$LINT" --runs 30 \
    > "$W/lint_effect/timing.json" 2> "$W/lint_effect/time.stderr"
log "lint_effect time: rc $?"
timeout 100 "${NCU[@]}" --csv python3 "$HERE/lint_effect.py" profile --dir "$LINT" \
    > "$W/lint_effect/lint_effect.csv" 2> "$W/lint_effect/profile.stderr"
log "lint_effect profile: rc $? $(grep -c '^"' "$W/lint_effect/lint_effect.csv") CSV lines"
tar -C "$W" -czf "$OUT/lint_effect.tar.gz" lint_effect
log "all done"
