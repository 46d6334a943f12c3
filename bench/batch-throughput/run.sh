#!/usr/bin/env bash
# `cargo occupancy batch` beside awk on the same 10^6-row TSV: the time of each (the fastest
# of several runs, interleaved, so that a shared machine's load hits both alike), their
# ratio, and batch's peak memory (max RSS) against a 10x smaller and a 10x larger input
# (flat: it streams). docs/PERFORMANCE.md, "batch throughput", has a run.
#
#   bench/batch-throughput/run.sh [path/to/cargo-occupancy] [runs]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-target/release/cargo-occupancy}
runs=${2:-7}
[ -x "$bin" ] || cargo build --release -q -p cargo-occupancy
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ROWS rows of realistic configurations (every architecture, blocks, registers, static and
# dynamic shared memory, opt-ins, carveouts), the same each time: a linear congruential
# generator in awk.
make_input() {
  awk -v rows="$1" 'BEGIN {
    OFS = "\t"; split("sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_103 sm_120 sm_121", a, " ")
    print "arch", "block_size", "registers_per_thread", "static_smem", "dynamic_smem", "max_dynamic_smem", "carveout"
    x = 12345
    for (i = 0; i < rows; i++) {
      x = (x * 1103515245 + 12345) % 2147483648; arch = a[x % 10 + 1]
      x = (x * 1103515245 + 12345) % 2147483648; block = (x % 32 + 1) * 32
      x = (x * 1103515245 + 12345) % 2147483648; regs = x % 255 + 1
      x = (x * 1103515245 + 12345) % 2147483648; stat = (x % 13) * 1024
      x = (x * 1103515245 + 12345) % 2147483648; dyn = (x % 97) * 512
      x = (x * 1103515245 + 12345) % 2147483648; carve = x % 102 - 1
      print arch, block, regs, stat, dyn, (dyn > 49152 ? dyn : 49152), carve
    }
  }' >"$2"
}

make_input 1000000 "$work/1m.tsv"
make_input 100000 "$work/100k.tsv"
make_input 10000000 "$work/10m.tsv"
echo "input: 10^6 rows, $(wc -c <"$work/1m.tsv") bytes; $bin; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"

# Wall seconds of a command, stdin from a file, stdout discarded.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

awk_times=() batch_times=()
for _ in $(seq "$runs"); do
  awk_times+=("$(seconds sh -c "awk -F'\t' '{s += \$2} END {print s}' <'$work/1m.tsv'")")
  batch_times+=("$(seconds sh -c "'$bin' occupancy batch <'$work/1m.tsv'")")
done
min() { printf '%s\n' "$@" | sort -g | head -1; }
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
a=$(min "${awk_times[@]}") b=$(min "${batch_times[@]}")
printf 'awk   fastest %.3f s, median %.3f s (%s runs)\n' "$a" "$(median "${awk_times[@]}")" "$runs"
printf 'batch fastest %.3f s, median %.3f s\n' "$b" "$(median "${batch_times[@]}")"
printf 'ratio (fastest) %.2f\n' "$(echo "$b / $a" | bc -l)"

for f in 100k 1m 10m; do
  rss=$( { /usr/bin/time -f '%M' "$bin" occupancy batch <"$work/$f.tsv" >/dev/null; } 2>&1 | tail -1)
  echo "max RSS, $f rows: $rss KiB"
done
