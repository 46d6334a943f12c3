#!/bin/sh
# Runs one fuzz target on one core until RUNS executions (default 10 million) or SECONDS
# (default 2400) have passed, whichever comes first; libFuzzer's output goes to
# fuzz/logs/<target>.log and its final stats to the terminal.
#
#   fuzz/run.sh cubin                 # fuzz/corpus/cubin, 10 M runs or 40 minutes
#   fuzz/run.sh cubin-fixtures -1 600 # the large real cubins, 10 minutes (no run limit)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); see README.md for the toolchain.
set -eu
cd "$(dirname "$0")"
corpus=$1
target=${corpus%-fixtures}
runs=${2:-10000000}
seconds=${3:-2400}
[ -d "corpus/$corpus" ] || ./seed.sh >/dev/null
dict=
[ -f "dict/$target.dict" ] && dict="-dict=dict/$target.dict"
mkdir -p logs
# Stable toolchain (rust-toolchain.toml) with nightly flags allowed; no sanitizer: the
# fuzzed code is safe Rust, and what is looked for is panics, overflows, hangs and huge
# allocations, which need none (see README.md).
RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none "$target" "corpus/$corpus" -- \
    -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 $dict >"logs/$corpus.log" 2>&1 || status=$?
grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)|^stat::|panicked at|Test unit written|^SUMMARY' "logs/$corpus.log" || true
exit "${status:-0}"
