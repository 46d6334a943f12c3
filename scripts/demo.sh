#!/usr/bin/env bash
# The main job: build the example launch wrappers (the warnings are #[occupancy::check] at
# work, on the launch configurations it reads from the wrappers' bodies), list every
# wrapper's occupancy per target with `cargo occupancy report`, then run every example: on a
# machine with a CUDA GPU each launches its kernels and checks them against its CPU
# reference and the driver; without one, each runs its CPU reference.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo build --release --examples (warnings from #[occupancy::check] follow) =="
# Cargo replays the warnings of a cached build too. A failed build stops the script (pipefail);
# grep finding nothing to print does not.
cargo build --release --examples 2>&1 | { grep -v -E '^\s+(Compiling|Checking|Finished|Running)\b' || true; }

target_dir="${CARGO_TARGET_DIR:-target}"
echo
echo "== cargo occupancy report examples (every wrapper, every target) =="
cargo build --release -q -p cargo-occupancy
"$target_dir/release/cargo-occupancy" occupancy report examples

status=0
for example in saxpy reduce sgemm softmax layernorm transpose histogram conv2d verify_driver; do
  echo
  echo "== $example =="
  "$target_dir/release/examples/$example" || status=1
done
exit "$status"
