#!/usr/bin/env bash
# The nightly backend's UI snapshots (tests/ui-nightly/, feature `nightly`): run with the
# nightly toolchain where one is installed, skipped with a message where none is. Not part
# of CI, which runs on stable only. Works from any directory, with any CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! nightly=$(cargo +nightly --version 2>/dev/null); then
  echo "skipped: no nightly toolchain (rustup toolchain install nightly); the nightly snapshots did not run"
  exit 0
fi
echo "nightly snapshots with $nightly"
exec cargo +nightly test --release --features nightly --test ui_nightly "$@"
