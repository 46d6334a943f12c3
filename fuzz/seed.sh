#!/bin/sh
# Assembles the starting corpus of every fuzz target in fuzz/corpus/<target>/ (ignored by
# git) from the committed seeds (fuzz/seeds/) and the project's real artifacts: the cubins,
# fatbins, ptxas logs and PTX of occupancy-core/tests/fixtures/, the policy files of the UI
# tests, the example resource manifest, and the attribute texts of tests/ui/.
# Run from anywhere; existing corpus files are kept.
#
# The real cubins, fatbins and PTX (26-105 KB) slow every execution 10-20 times against the
# few-KB seeds of fuzz/make-seeds.py, so they go to fuzz/corpus/<target>-fixtures/ for a
# separate, time-limited run instead of the main corpus.
set -eu
cd "$(dirname "$0")"
fx=../occupancy-core/tests/fixtures
mk() { mkdir -p "corpus/$1"; }
put() { # target, files...
    t=$1; shift
    for f in "$@"; do
        [ -f "$f" ] && cp "$f" "corpus/$t/$(echo "$f" | tr '/' '_' | sed 's/^[._]*//')"
    done
    return 0
}
for t in read cubin fatbin host ptxas_log ptx manifest policy engine attribute body batch cuda \
    read-fixtures cubin-fixtures fatbin-fixtures host-fixtures ptx-fixtures; do mk "$t"; done
put cubin seeds/cubin/*
put cubin-fixtures "$fx"/nvrtc-*/*.cubin
put fatbin seeds/fatbin/*
put fatbin-fixtures "$fx"/fatbin/*.fatbin
put host seeds/host/*
put cuda seeds/cuda/* ../tests/fixtures/cuda-crate/src/cuda/*.cu ../tests/fixtures/cuda-crate/src/cuda/*.cuh
put host-fixtures "$fx"/nvcc-13.5/*.o "$fx"/nvcc-13.5/*.a
put ptxas_log seeds/ptxas_log/* "$fx"/nvrtc-*/*.log "$fx"/ptxas/*.log
put ptx seeds/ptx/*
put ptx-fixtures "$fx"/nvrtc-*/*.ptx
put read seeds/cubin/* seeds/fatbin/* seeds/host/* seeds/ptxas_log/* seeds/ptx/* \
    "$fx"/nvrtc-*/*.log "$fx"/ptxas/*.log
put read-fixtures "$fx"/nvrtc-*/*.cubin "$fx"/fatbin/*.fatbin
put manifest seeds/manifest/* ../examples/kernels.manifest.json
put attribute seeds/attribute/*
# Whole files for the body reader: the UI cases and the launch-styles crate (its consts
# module after the body target's separator line).
put body seeds/body/* ../tests/ui/pass/*.rs ../tests/ui/warn/*.rs ../tests/ui/fail/body_*.rs \
    ../tests/ui/kernel/warn/body_*.rs
python3 - <<'PY'
import pathlib
crate = pathlib.Path("../tests/fixtures/launch-styles/src")
consts = (crate / "consts.rs").read_text()
for ops in sorted((crate / "ops").glob("*.rs")):
    text = "mod consts;\n" + ops.read_text() + "\n//--consts.rs--\n" + consts
    pathlib.Path(f"corpus/body/launch-styles_{ops.stem}.rs").write_text(text)
PY
put batch seeds/batch/*
put policy seeds/policy/* ../tests/ui/policy/*.toml ../tests/fixtures/user-crate/occupancy.toml
# The text between `#[occupancy::check(` and its closing `)]`, one file per attribute.
python3 - <<'PY'
import glob, hashlib, os
for path in sorted(glob.glob("../tests/ui/**/*.rs", recursive=True)):
    text = open(path, encoding="utf-8").read()
    start = 0
    while (i := text.find("#[occupancy::check(", start)) >= 0:
        j, depth, quoted = i + len("#[occupancy::check("), 1, False
        while j < len(text) and depth:
            c = text[j]
            if quoted:
                if c == "\\": j += 1
                elif c == '"': quoted = False
            elif c == '"': quoted = True
            elif c in "([{": depth += 1
            elif c in ")]}": depth -= 1
            j += 1
        args = text[i + len("#[occupancy::check("):j - 1]
        name = hashlib.sha1(args.encode()).hexdigest()[:16]
        open(os.path.join("corpus/attribute", name), "w", encoding="utf-8").write(args)
        start = j
PY
for t in read cubin fatbin host ptxas_log ptx manifest policy engine attribute body batch cuda \
    read-fixtures cubin-fixtures fatbin-fixtures host-fixtures ptx-fixtures; do
    printf '%-10s %4d files %8d bytes\n' "$t" "$(ls "corpus/$t" | wc -l)" "$(cat "corpus/$t"/* 2>/dev/null | wc -c)"
done
