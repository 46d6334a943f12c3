#!/usr/bin/env bash
# What cargo notices of a file beside Cargo.toml (occupancy.toml) under each mechanism a
# crate could use to tell cargo about it: creating it where the last build found none,
# editing it, deleting it, and whether the build after each is fresh. Scratch crates in a
# temporary folder, no dependency; prints one line per (mechanism, step): the first word
# of cargo's verdict for the crate (Fresh, Dirty) and its reason. docs/PERFORMANCE.md,
# "What cargo notices", has a run.
#
#   bench/cargo-tracking/run.sh
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# crate NAME BUILD_RS LIB_RS: a package in $work/NAME (its own workspace).
crate() {
  mkdir -p "$work/$1/src"
  printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2024"\n\n[workspace]\n' "$1" >"$work/$1/Cargo.toml"
  if [ -n "$2" ]; then printf '%s\n' "$2" >"$work/$1/build.rs"; fi
  printf '%s\n' "$3" >"$work/$1/src/lib.rs"
}

# verdict NAME TARGET_DIR: the crate's line of `cargo build -v` (Fresh or Dirty, and why).
verdict() {
  local line
  line=$(cd "$work/$1" && CARGO_TARGET_DIR="$2" cargo build -v 2>&1 |
    { grep -E "^ *(Fresh|Dirty) $1 |^error" || true; } | head -1 | sed -E 's/^ +//; s/ v0\.0\.0 \([^)]*\)//')
  # A build with nothing to check (the first) prints neither.
  echo "${line:-Compiling (first build)}" | cut -c1-110
}

# steps NAME TARGET_DIR: first build, then no change, create, no change, edit, no change,
# delete, no change; one verdict each.
steps() {
  local name=$1 target=$2 policy="$work/$1/occupancy.toml"
  rm -f "$policy"
  verdict "$name" "$target" >/dev/null
  echo "  no change:        $(verdict "$name" "$target")"
  sleep 1.1; echo 'min_occupancy = "75%"' >"$policy"
  echo "  created:          $(verdict "$name" "$target")"
  echo "  then no change:   $(verdict "$name" "$target")"
  sleep 1.1; echo 'min_occupancy = "70%"' >"$policy"
  echo "  edited:           $(verdict "$name" "$target")"
  echo "  then no change:   $(verdict "$name" "$target")"
  rm "$policy"
  echo "  deleted:          $(verdict "$name" "$target")"
  echo "  then no change:   $(verdict "$name" "$target")"
}

echo "1. build.rs: cargo:rerun-if-changed=occupancy.toml (also while it does not exist)"
crate missing 'fn main() { println!("cargo:rerun-if-changed=occupancy.toml"); }' ''
steps missing "$work/target"

echo "2. build.rs: cargo:rerun-if-changed=. (the crate directory), target/ inside it"
crate dir_in 'fn main() { println!("cargo:rerun-if-changed=."); }' ''
steps dir_in "$work/dir_in/target"

echo "3. build.rs: cargo:rerun-if-changed=. (the crate directory), target/ elsewhere"
crate dir_out 'fn main() { println!("cargo:rerun-if-changed=."); }' ''
steps dir_out "$work/target"
echo "   and an edit of src/lib.rs: $(sleep 1.1; echo '// edited' >>"$work/dir_out/src/lib.rs"; verdict dir_out "$work/target")"

echo "4. build.rs with no rerun-if line (cargo's default: any file of the package)"
crate default 'fn main() {}' ''
steps default "$work/target"
echo "   and an edit of src/lib.rs: $(sleep 1.1; echo '// edited' >>"$work/default/src/lib.rs"; verdict default "$work/target") (the build script reruns)"

echo "5. no build script; the expansion include_bytes!es the file when it exists (what #[occupancy::check] does)"
crate include '' '#[cfg(any())] const _: () = ();'
# The file's presence at expansion time decides the include, as the attribute's does: a
# build that finds it compiles src/lib.rs with the include, one that does not, without.
cat >"$work/include/build_lib.sh" <<'EOF'
if [ -f occupancy.toml ]; then
  echo 'pub static P: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/occupancy.toml"));' >src/lib.rs
fi
EOF
policy="$work/include/occupancy.toml"
verdict include "$work/target" >/dev/null
echo '  (src/lib.rs include_bytes!es occupancy.toml, which exists from the first build on)'
sleep 1.1; echo 'min_occupancy = "75%"' >"$policy"; (cd "$work/include" && sh build_lib.sh)
echo "  first build with it:  $(verdict include "$work/target")"
echo "  then no change:       $(verdict include "$work/target")"
sleep 1.1; echo 'min_occupancy = "70%"' >"$policy"
echo "  edited:               $(verdict include "$work/target")"
echo "  then no change:       $(verdict include "$work/target")"
rm "$policy"
echo "  deleted:              $(verdict include "$work/target") (the attribute then expands without the include)"

echo "6. include_bytes! of a directory (to watch the crate directory from the expansion)"
crate include_dir '' 'pub static D: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));'
echo "  $(cd "$work/include_dir" && CARGO_TARGET_DIR="$work/target" cargo build 2>&1 | grep -E '^error' | head -1)"
