#!/usr/bin/env python3
"""The real-crate corpus (issue 24): fetch it, compile its kernels, check the report on it.

    corpus/corpus.py fetch              # cargo fetch of corpus/Cargo.toml; prints each package's root
    corpus/corpus.py compile [CRATE]    # only the nvcc part of `resources`
    corpus/corpus.py manifest [CRATE]   # only the manifest part, from the cubins compiled
    corpus/corpus.py resources [CRATE]  # nvcc 13.5 -> cubins (target dir) -> corpus/resources/CRATE.json
    corpus/corpus.py sample             # CI: a sample of the committed resources against a fresh compile
    corpus/corpus.py check              # report --all over every crate against corpus/reviewed/*.toml
    corpus/corpus.py realcode           # writes docs/REALCODE.md from the same run

Sources come through cargo (`cargo fetch` of corpus/Cargo.toml, read where cargo unpacks
published packages, located with `cargo metadata`); nothing of them is committed. How each
crate compiles its CUDA C++ is in corpus/crates.toml, read from its build.rs.
"""

from __future__ import annotations

import concurrent.futures
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CRATES = tomllib.loads((HERE / "crates.toml").read_text())
RESOURCES = HERE / "resources"
REVIEWED = HERE / "reviewed"


def die(msg: str) -> None:
    print(f"corpus: {msg}", file=sys.stderr)
    sys.exit(2)


def target_dir() -> Path:
    """The occupancy workspace's target directory (honours CARGO_TARGET_DIR)."""
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps",
         "--manifest-path", str(ROOT / "Cargo.toml")],
        check=True, capture_output=True, text=True,
    ).stdout
    return Path(json.loads(out)["target_directory"])


def package_roots() -> dict[str, Path]:
    """Each corpus crate's unpacked package (cargo fetch first), by name, at its pinned version."""
    subprocess.run(["cargo", "fetch", "--manifest-path", str(HERE / "Cargo.toml")],
                   check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--manifest-path", str(HERE / "Cargo.toml")],
        check=True, capture_output=True, text=True,
    ).stdout
    roots = {}
    for p in json.loads(out)["packages"]:
        want = CRATES["crates"].get(p["name"])
        if want and want["version"] == p["version"]:
            roots[p["name"]] = Path(p["manifest_path"]).parent
    missing = sorted(set(CRATES["crates"]) - set(roots))
    if missing:
        die(f"not fetched: {', '.join(missing)}")
    # The report resolves a crate's dependencies with `cargo metadata --offline` in the
    # package itself, through the package's own Cargo.lock, which names optional and other
    # platforms' dependencies (candle-nn's candle-metal-kernels) that the fetch above leaves
    # out: fetch each package's own graph too (it writes nothing into the package).
    for root in roots.values():
        subprocess.run(["cargo", "fetch", "--manifest-path", str(root / "Cargo.toml")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return roots


def find_nvcc() -> Path:
    """nvcc 13.5 of the PyPI wheel (nvidia-cuda-nvcc==13.5.37), else OCCUPANCY_NVCC."""
    if os.environ.get("OCCUPANCY_NVCC"):
        return Path(os.environ["OCCUPANCY_NVCC"])
    import importlib.util
    spec = importlib.util.find_spec("nvidia")
    for base in (spec.submodule_search_locations or []) if spec else []:
        cand = Path(base) / "cu13" / "bin" / "nvcc"
        if cand.is_file():
            return cand
    die("no nvcc: pip install nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37 "
        "nvidia-cuda-crt==13.5.37 nvidia-cuda-runtime==13.5.37 nvidia-cuda-cccl")
    raise AssertionError


class Source(NamedTuple):
    """A file the corpus compiles for a crate: `rel` names it (the package-relative source,
    or `<rust file>#<module>` for a module built from a string constant); `module` is that
    module's name when the manifest should give its kernels that qualifier (recorded as the
    cubin's file name, `concat_float.sm_80.cubin`) instead of the source's stem."""
    rel: str
    module: str | None = None


def sources_of(name: str, root: Path) -> dict[Path, Source]:
    """What the crate compiles, as the file nvcc is given -> [`Source`]: the .cu files its
    build.rs compiles (crates.toml `sources` less `exclude`), and the Rust string constants
    it compiles at run time with nvrtc (crates.toml `strings`), each written out as a .cu
    file ([`string_sources`])."""
    spec = CRATES["crates"][name]
    files: set[Path] = set()
    for pattern in spec.get("sources", []):
        files.update(Path(p) for p in glob.glob(str(root / pattern), recursive=True))
    excluded = spec.get("exclude", [])
    found = {f: Source(f.relative_to(root).as_posix()) for f in sorted(files)
             if not any(fnmatch.fnmatch(f.name, e) for e in excluded)}
    found.update(string_sources(name, root))
    return found


def string_instances(name: str, entry: dict, text: str) -> list[tuple[str | None, str]]:
    """(module, source) of one crates.toml `strings` entry: the constant as it is, or, with
    `module` and `each`, once per choice of type names for its placeholders (`$Ty` over the
    crate's `type_names.dtype`), each substituted in the order `each` gives, in the source
    (as the crate's `KERNEL.replace("$Ty", E::NAME)` does) and in the module pattern."""
    if "module" not in entry:
        return [(None, text)]
    names = CRATES["crates"][name].get("type_names", {})
    out = [(entry["module"], text)]
    for placeholder, names_key in entry.get("each", {}).items():
        if names_key not in names:
            die(f"{name}: `strings` entry {entry['constant']}: no type_names.{names_key}")
        out = [(m.replace(placeholder, t), src.replace(placeholder, t))
               for m, src in out for t in names[names_key]]
    return out


def string_sources(name: str, root: Path) -> dict[Path, Source]:
    """crates.toml `strings`: each `const NAME: &str = "...";` of a Rust file that the crate
    hands nvrtc at run time (cudarc's `compile_ptx(PTX_SRC)`), written to the target
    directory as `<file stem>.cu` (the module stem the manifest gives its kernels is the
    Rust file's), or, for an entry with a module pattern, once per module as `<module>.cu`
    ([`string_instances`]); by written path -> [`Source`]."""
    entries = CRATES["crates"][name].get("strings", [])
    out = target_dir() / "occupancy-corpus" / "strings" / name if entries else None
    found = {}
    for entry in entries:
        rs = root / entry["file"]
        text = rust_string_constant(rs.read_text(), entry["constant"])
        if text is None:
            die(f"{name}: no `const {entry['constant']}: &str = \"...\";` in {entry['file']}")
        out.mkdir(parents=True, exist_ok=True)
        for module, source in string_instances(name, entry, text):
            cu = out / f"{module or rs.stem}.cu"
            if not cu.is_file() or cu.read_text() != source:
                cu.write_text(source)
            found[cu] = Source(f"{entry['file']}#{module}", module) if module else Source(entry["file"])
    return found


def rust_string_constant(source: str, constant: str) -> str | None:
    """The value of `const <constant>: &str = "...";` in Rust source: a plain literal with
    Rust's escapes (`\\"`, `\\n`, a `\\` before a line break skipping the break and the
    next line's indent) or a raw one (`r#"..."#`); None when there is none."""
    m = re.search(rf"\bconst\s+{re.escape(constant)}\s*:\s*&(?:'static\s+)?str\s*=\s*", source)
    if not m:
        return None
    rest = source[m.end():]
    raw = re.match(r'r(#*)"', rest)
    if raw:
        end = rest.find('"' + raw.group(1), raw.end())
        return None if end < 0 else rest[raw.end():end]
    if not rest.startswith('"'):
        return None
    escapes = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}
    out, i = [], 1
    while i < len(rest):
        c = rest[i]
        if c == '"':
            return "".join(out)
        if c == "\\" and i + 1 < len(rest):
            nxt = rest[i + 1]
            if nxt == "\n":
                i += 2
                while i < len(rest) and rest[i] in " \t\r\n":
                    i += 1
                continue
            if nxt not in escapes:
                return None  # \x.. and \u{..}: not in the corpus's kernels
            out.append(escapes[nxt])
            i += 2
            continue
        out.append(c)
        i += 1
    return None


def nvcc_command(nvcc: Path, name: str, root: Path, source: Path, arch: str, out: Path) -> list[str]:
    spec = CRATES["crates"][name]
    cmd = [str(nvcc), "-cubin", f"-arch={arch}", *spec.get("flags", [])]
    if spec.get("include_header_dirs"):
        dirs = sorted({Path(h).parent for h in glob.glob(str(root / "src/**/*.cuh"), recursive=True)})
        cmd += [f"-I{d}" for d in dirs]
    return cmd + ["-o", str(out), str(source)]


def compile_crate(name: str, root: Path, nvcc: Path, cubins: Path) -> list[str]:
    """Every (source, target) to `cubins/<stem>.<arch>.cubin`; returns the failures."""
    cubins.mkdir(parents=True, exist_ok=True)
    jobs = []
    sources = sources_of(name, root)
    for src in sources:
        for arch in CRATES["targets"]:
            out = cubins / f"{src.stem}.{arch}.cubin"
            if out.is_file() and out.stat().st_mtime >= src.stat().st_mtime:
                continue
            jobs.append((src, arch, out))
    failures = []

    def run(job):
        src, arch, out = job
        partial = out.with_suffix(".partial")
        p = subprocess.run(nvcc_command(nvcc, name, root, src, arch, partial),
                           capture_output=True, text=True, cwd=root)
        if p.returncode == 0:
            partial.replace(out)
        return job, p

    workers = int(os.environ.get("CORPUS_JOBS", os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        for (src, arch, out), p in pool.map(run, jobs):
            rel = sources[src].rel
            if p.returncode != 0:
                last = (p.stderr.strip().splitlines() or ["?"])[-1]
                failures.append(f"{rel} {arch}: {last}")
                print(f"  FAILED {rel} {arch}: {last}", flush=True)
            else:
                print(f"  {rel} {arch}", flush=True)
    return failures


def occupancy_bin() -> Path:
    """The cargo-occupancy binary of this checkout (built in release if needed)."""
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "cargo-occupancy",
                    "--manifest-path", str(ROOT / "Cargo.toml")], check=True)
    return target_dir() / "release" / "cargo-occupancy"


def cmd_resources(only: list[str], compile_only: bool = False, manifest_only: bool = False) -> None:
    roots = package_roots()
    nvcc = find_nvcc()
    version = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True).stdout
    release = next((l for l in version.splitlines() if "release" in l), version.strip())
    cubin_root = target_dir() / "occupancy-corpus" / "cubins"
    chosen = [n for n in (only or CRATES["crates"]) if CRATES["crates"][n].get("sources")]
    failures = {}
    for name in chosen:
        print(f"{name}: {len(sources_of(name, roots[name]))} .cu files", flush=True)
        failures[name] = [] if manifest_only else compile_crate(name, roots[name], nvcc, cubin_root / name)
    if compile_only:
        return
    binary = occupancy_bin()
    for name in chosen:
        raw = cubin_root / f"{name}.raw.json"
        subprocess.run([str(binary), "occupancy", "inspect", str(cubin_root / name),
                        "--write-manifest", str(raw)], check=True, stdout=subprocess.DEVNULL)
        finish_manifest(name, roots[name], raw, failures[name], release)


def finish_manifest(name: str, root: Path, raw: Path, failures: list[str], release: str) -> None:
    """resources/<name>.json from `inspect --write-manifest`'s output over the crate's cubins."""
    RESOURCES.mkdir(exist_ok=True)
    manifest = RESOURCES / f"{name}.json"
    data = json.loads(raw.read_text())
    # Paths of this machine's target directory are no facts of the crate.
    data["generator"] = f"corpus/corpus.py resources with nvcc {release.strip()}"
    data["failed"] = failures
    stems = {src.stem: source for src, source in sources_of(name, root).items()}
    for k in data["kernels"]:
        # The source the cubin came from, relative to the package (its module for the
        # Rust side's lookups), instead of this machine's path of the cubin; a module built
        # from a string constant keeps the cubin's file name (its stem is the module).
        cubin = Path(k.pop("artifact")).name
        source = stems[cubin.split(".")[0]]
        if source.module:
            k["artifact"] = cubin
        else:
            k["source"] = source.rel
    manifest.write_text(manifest_text(data))
    print(f"  -> {manifest.relative_to(ROOT)}: {len(data['kernels'])} kernel entries, "
          f"{len(failures)} failed compiles", flush=True)


def manifest_text(data: dict) -> str:
    """The manifest as JSON with one kernel a line (small, and diffs show kernels)."""
    head = {k: v for k, v in data.items() if k != "kernels"}
    kernels = ",\n".join(json.dumps(k, sort_keys=True) for k in
                         sorted(data["kernels"], key=lambda k: (k.get("source", ""), k["name"], k["arch"])))
    return json.dumps(head, indent=1)[:-2] + ',\n "kernels": [\n' + kernels + "\n ]\n}\n"


def cmd_compile_offline(args: list[str]) -> None:
    """The nvcc and inspect steps of `resources` on a machine without cargo or network (a
    larger one): `compile-offline SOURCES NVCC OCCUPANCY_BIN OUT CRATE...` with the packages
    unpacked under SOURCES as `<name>-<version>/`; writes OUT/<crate>.raw.json and
    OUT/<crate>.failed.json, which `finish OUT CRATE...` turns into resources/ here."""
    sources, nvcc, binary, out = (Path(a) for a in args[:4])
    release = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True).stdout
    release = next((l for l in release.splitlines() if "release" in l), "?").strip()
    for name in args[4:]:
        root = sources / f"{name}-{CRATES['crates'][name]['version']}"
        print(f"{name}: {len(sources_of(name, root))} .cu files", flush=True)
        failures = compile_crate(name, root, nvcc, out / name)
        subprocess.run([str(binary), "occupancy", "inspect", str(out / name), "--write-manifest",
                        str(out / f"{name}.raw.json")], check=True, stdout=subprocess.DEVNULL)
        (out / f"{name}.failed.json").write_text(json.dumps({"failed": failures, "nvcc": release}))


def cmd_finish(args: list[str]) -> None:
    roots = package_roots()
    out = Path(args[0])
    for name in args[1:]:
        meta = json.loads((out / f"{name}.failed.json").read_text())
        finish_manifest(name, roots[name], out / f"{name}.raw.json", meta["failed"], meta["nvcc"])



# ---------------------------------------------------------------------------------------
# The check: report --all over each crate, against reviewed/<crate>.toml and today/<crate>.json.

TODAY = HERE / "today"


def run_report(binary: Path, name: str, root: Path) -> tuple[dict, float, int, list[str]]:
    """`report --all --json` of one crate: (JSON, wall seconds, peak RSS in bytes, the notes
    it printed that a file does not parse)."""
    import tempfile
    import time
    spec = CRATES["crates"][name]
    cmd = [str(binary), "occupancy", "report", "--all", "--json", "--manifest-path", str(root / "Cargo.toml")]
    manifest = RESOURCES / f"{spec.get('kernels_from', name)}.json"
    if manifest.is_file():
        cmd += ["--kernel-manifest", str(manifest)]
    # A user's policy for the crate (corpus/README.md, "User policies"), else the crate's.
    env = dict(os.environ)
    env.pop("OCCUPANCY_POLICY", None)
    policy = HERE / "policy" / f"{name}.toml"
    if policy.is_file():
        cmd += ["--policy", str(policy)]
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - start
        err.seek(0)
        unparsed = [line.strip().removeprefix("note: ").replace(str(root) + "/", "")
                    for line in err if "does not parse" in line]
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        die(f"{name}: report --all exited {code}")
    return json.loads(out), seconds, usage.ru_maxrss * 1024, unparsed


def dims(v) -> tuple[int, int, int]:
    if isinstance(v, int):
        return (v, 1, 1)
    v = list(v) + [1] * (3 - len(v))
    return (int(v[0]), int(v[1]), int(v[2]))


def value_matches(want, got, kind: str, target: str):
    """True, False, or None (the reviewed value is words the reviewer did not work out)."""
    if isinstance(want, str):
        return False if want.startswith("run time") else None
    if isinstance(want, dict):
        if "per_target" in want:
            if target not in want["per_target"]:
                return None
            return value_matches(want["per_target"][target], got, kind, target)
        if "one_of" in want:
            res = [value_matches(w, got, kind, target) for w in want["one_of"]]
            return True if True in res else (None if None in res else False)
        if "range" in want:
            lo, hi = want["range"]
            return lo <= got <= hi
        return None
    if kind == "block":
        return dims(want) == dims(got)
    return want == got


# The typedefs of <cstdint> and CUDA's fp16/bf16 headers on LP64 Linux, as the compiler
# names the types in a kernel's symbol: a launch may spell either.
TYPEDEFS = {"half": "__half", "half2": "__half2", "nv_bfloat16": "__nv_bfloat16",
            "nv_bfloat162": "__nv_bfloat162", "int8_t": "signed char", "uint8_t": "unsigned char",
            "int16_t": "short", "uint16_t": "unsigned short", "int32_t": "int",
            "uint32_t": "unsigned int", "int64_t": "long", "uint64_t": "unsigned long",
            "size_t": "unsigned long"}


def canonical_kernel(name: str) -> str:
    """A kernel name with typedefs resolved and no spaces, for comparing spellings."""
    import re
    name = re.sub(r"\b[A-Za-z_][A-Za-z0-9_]*\b", lambda m: TYPEDEFS.get(m.group(0), m.group(0)), name)
    return name.replace(" ", "")


def kernel_matches(want, got: str, module: str | None = None) -> bool:
    """Whether the reviewed kernel `want` (a glob, or `one_of` them) names `got`, alone or
    after its `module` (`concat_*::fwd` for dfdx's `fwd` of the module `concat_float`)."""
    if isinstance(want, dict):
        return any(kernel_matches(w, got, module) for w in want.get("one_of", []))
    pattern = canonical_kernel(want).replace("[", "[[]")
    return (fnmatch.fnmatchcase(canonical_kernel(got), pattern)
            or (module is not None and fnmatch.fnmatchcase(canonical_kernel(f"{module}::{got}"), pattern)))


def module_stem(file: str) -> str:
    """As the resource manifest names a file's module: `src/a/conv2d.cu` -> `conv2d`."""
    import re
    stem = os.path.basename(file).rsplit(".", 1)[0] or os.path.basename(file)
    return re.sub(r"(?<=.)\.(sm|compute)_\d+[a-z]?$", "", stem)


def split_module(name: str, modules: set[str]) -> tuple[str | None, str]:
    """`conv2d::transpose_filters_f16` -> (`conv2d`, `transpose_filters_f16`) where `conv2d`
    is a module of the crate's resources (a C++ namespace is not)."""
    head, sep, rest = name.partition("::")
    return (head, rest) if sep and head in modules else (None, name)


def classify(row: dict, launches: list[dict]) -> str:
    """`match`, `unverified` or `wrong`: the row against the launches the code makes."""
    best = "wrong"
    for l in launches:
        if not kernel_matches(l.get("kernel", "*"), row["kernel"], row.get("module")):
            continue
        b = value_matches(l.get("block"), row["block"], "block", row["target"])
        m = value_matches(l.get("smem", 0), row["smem"], "smem", row["target"])
        if b is False or m is False:
            continue
        if b and m:
            return "match"
        best = "unverified"
    return best


def entries_of(report: dict) -> list[dict]:
    """Each launch the report lists (Rust wrappers and C++ paths) in one shape."""
    out = []
    for lang, key in (("rust", "wrappers"), ("cuda", "cuda_launches")):
        for w in report.get(key) or []:
            rows = [{
                "kernel": t["kernel"], "block": dims(t["block"]), "smem": t["dynamic_smem_bytes"],
                "target": t["target"], "occupancy": t.get("occupancy_percent", -1),
                "registers": t["registers_per_thread"], "static_smem": t["static_smem_bytes"],
                "blocks_per_sm": t.get("blocks_per_sm"), "barriers": t.get("barriers", 0),
                "opt_in": t.get("max_dynamic_smem_bytes"),
            } for t in w.get("targets") or []]
            findings = sorted({f.get("lint", "?") for f in w.get("findings") or []})
            out.append({"lang": lang, "at": w["location"], "rows": rows, "kernel": w.get("kernel"),
                        "not_checked": list(w.get("not_checked") or []), "findings": findings})
    return out


def demangle(names: list[str]) -> list[str]:
    """C++ symbol names as c++filt prints them (others unchanged)."""
    if not names:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(names) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return out if len(out) == len(names) else names


def without_parameters(demangled: str) -> str:
    """`void k<(t)1, 2>(char const*, int)` -> `k<(t)1, 2>`: the name as the report writes it."""
    name = demangled.removeprefix("void ")
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                return name[:i]
    return name


def engine_answers(binary: Path, rows: list[dict], resources: dict) -> list[str | None]:
    """For each row, the engine's occupancy from the committed resources (or why none)."""
    index = {}
    kernels = resources.get("kernels", [])
    for k, plain in zip(kernels, demangle([k["name"] for k in kernels])):
        for n in (k["name"], plain, without_parameters(plain)):
            index.setdefault((canonical_kernel(n), k["arch"]), []).append(k)
    lines = ["arch\tblock_size\tregisters_per_thread\tstatic_smem\tdynamic_smem\tbarriers\tmax_dynamic_smem"]
    problems: list[str | None] = []
    for r in rows:
        found = [k for k in index.get((canonical_kernel(r["kernel"]), r["target"]), [])
                 if r.get("module") in (None, module_stem(k.get("source") or k.get("artifact") or ""))]
        if not found:
            problems.append("not in resources")
            lines.append(f"{r['target']}\t32\t32\t0\t0\t0\t")
            continue
        # One name in several modules (a header's kernel in each file that includes it):
        # the row's resources must be one of theirs.
        k = next((k for k in found if (k["registers_per_thread"], k["static_smem_bytes"])
                  == (r["registers"], r["static_smem"])), found[0])
        if (k["registers_per_thread"], k["static_smem_bytes"]) != (r["registers"], r["static_smem"]):
            problems.append(f"resources say {k['registers_per_thread']} registers, "
                            f"{k['static_smem_bytes']} B static; the row {r['registers']}, {r['static_smem']}")
        else:
            problems.append(None)
        b = r["block"]
        # The row's opt-in is the launch's (the code's cudaFuncSetAttribute), as the report read it.
        lines.append(f"{r['target']}\t{b[0] * b[1] * b[2]}\t{k['registers_per_thread']}\t"
                     f"{k['static_smem_bytes']}\t{r['smem']}\t{k['barriers']}\t{r['opt_in'] or ''}")
    if not rows:
        return []
    # batch reads an absent max_dynamic_smem as "not opted in": rows without an opt-in go
    # in a table without that column.
    answers: list[dict] = [{} for _ in rows]
    for opted in (False, True):
        picked = [i for i, r in enumerate(rows) if bool(r["opt_in"]) == opted]
        if not picked:
            continue
        cut = (lambda l: l) if opted else (lambda l: l.rsplit("\t", 1)[0])
        table = [cut(lines[0])] + [cut(lines[i + 1]) for i in picked]
        out = subprocess.run([str(binary), "occupancy", "batch"], input="\n".join(table) + "\n",
                             capture_output=True, text=True).stdout.splitlines()
        header = out[0].split("\t")
        for i, line in zip(picked, out[1:]):
            answers[i] = dict(zip(header, line.split("\t")))
    for i, (r, cols) in enumerate(zip(rows, answers)):
        if problems[i] is None and cols.get("occupancy"):
            engine = float(cols["occupancy"].rstrip("%")) * (1 if "%" in cols["occupancy"] else 100)
            if abs(engine - r["occupancy"]) > 0.01:
                problems[i] = f"engine says {engine}%, the row {r['occupancy']}%"
    return problems


def crate_state(binary: Path, name: str, root: Path) -> tuple[dict, dict]:
    """What the report says of each site of `name` (the record kept in today/), and figures."""
    spec = CRATES["crates"][name]
    reviewed_path = REVIEWED / f"{name}.toml"
    if not reviewed_path.is_file():
        die(f"{name}: no reviewed file {reviewed_path.relative_to(ROOT)}")
    reviewed = tomllib.loads(reviewed_path.read_text())
    sites = {s["at"]: s for s in reviewed.get("site", [])}
    report, seconds, rss, unparsed = run_report(binary, name, root)
    scope = spec.get("scope")
    entries = [e for e in entries_of(report) if not scope or e["at"].startswith(tuple(scope))]
    manifest = RESOURCES / f"{spec.get('kernels_from', name)}.json"
    resources = json.loads(manifest.read_text()) if manifest.is_file() else {}
    modules = {module_stem(k.get("source") or k.get("artifact") or "") for k in resources.get("kernels", [])}
    # A launch written in a `#define` is reported where the macro is used: the review keys
    # it at the macro's line and names those lines in `reported_at`.
    # Where one use of a macro makes several launches, the kernel tells them apart.
    alias: dict[str, list[dict]] = {}
    for site in sites.values():
        for r in site.get("reported_at", []):
            alias.setdefault(r, []).append(site)
    by_site: dict[str, list[dict]] = {}
    for e in entries:
        claims = alias.get(e["at"], [])
        at = e["at"]
        if claims:
            kernels = [r["kernel"] for r in e["rows"]] or [e["kernel"] or ""]
            fits = [c for c in claims
                    if any(kernel_matches(l.get("kernel", "*"), k) for l in c.get("launches", []) for k in kernels)]
            at = (fits or claims)[0]["at"]
        by_site.setdefault(at, []).append(e)
    state = {}
    figures = {"seconds": seconds, "rss": rss, "unparsed": unparsed, "lints": {}, "rows": {"match": 0, "unverified": 0, "wrong": 0},
               "number_problems": 0, "status": {}, "unreviewed": 0, "by_lang": {}}
    for at in sorted(set(sites) | set(by_site), key=site_key):
        es = by_site.get(at, [])
        review = sites.get(at)
        # A Rust launch's kernel may be qualified with its module (a C++ one's `a::` is a
        # namespace).
        for e in es:
            for r in e["rows"]:
                r["module"], r["kernel"] = (split_module(r["kernel"], modules) if e["lang"] == "rust"
                                            else (None, r["kernel"]))
        rows = [r for e in es for r in e["rows"]]
        reasons = sorted({short_reason(r).replace(str(root), "<package>").replace(str(ROOT), "<repo>")
                          for e in es for r in e["not_checked"]})
        # A call the review found launches no kernel of the crate (a cuDNN operation's
        # `launch`): right when the report does not list it.
        not_a_launch = review is not None and review.get("expect") == NOT_A_LAUNCH
        if not_a_launch:
            status = LISTED_NOT_A_LAUNCH if es else NOT_A_LAUNCH
        elif not es:
            status = "missing"
        elif rows and reasons:
            status = "partial"
        elif rows:
            status = "numbers"
        else:
            status = "not checked"
        launches = (review or {}).get("launches", [])
        problems = engine_answers(binary, rows, resources) if rows else []
        row_lines = []
        for r, problem in zip(rows, problems):
            cls = classify(r, launches) if review else "unreviewed"
            figures["rows"][cls] = figures["rows"].get(cls, 0) + 1
            b = "x".join(map(str, r["block"]))
            shown = f"{r['module']}::{r['kernel']}" if r["module"] else r["kernel"]
            line = f"{shown} | block {b} | smem {r['smem']} | {r['target']} {r['occupancy']:g}% | {cls}"
            if problem:
                figures["number_problems"] += 1
                line += f" | WRONG NUMBER: {problem}"
            row_lines.append(line)
        for e in es:
            for lint in e["findings"]:
                figures["lints"][lint] = figures["lints"].get(lint, 0) + 1
        lang = (review or {}).get("lang") or (es[0]["lang"] if es else "?")
        rec = {"status": status, "lang": lang}
        if review is None:
            rec["unreviewed"] = True
            figures["unreviewed"] += 1
        else:
            rec["expect"] = review.get("expect", "?")
        if reasons:
            rec["not_checked"] = reasons
        if row_lines:
            rec["rows"] = sorted(set(row_lines))
        state[at] = rec
        key = (lang, status)
        figures["status"][key] = figures["status"].get(key, 0) + 1
        figures["by_lang"].setdefault(lang, {"sites": 0, "expect_numbers": 0})
        if not_a_launch:
            continue
        figures["by_lang"][lang]["sites"] += 1
        if review and review.get("expect") == "numbers":
            figures["by_lang"][lang]["expect_numbers"] += 1
    record = {"crate": name, "version": spec["version"], "sites": state}
    return record, figures


# The review's `expect` for a call named like a launch that launches no kernel of the
# crate, and the status of one the report lists all the same (a failure of the check).
NOT_A_LAUNCH = "not a launch"
LISTED_NOT_A_LAUNCH = "listed, not a launch"


def site_key(at: str):
    file, _, line = at.rpartition(":")
    return (file, int(line) if line.isdigit() else 0)


def short_reason(reason: str) -> str:
    """A not-checked reason without the path's own values (`block 64, smem 0 B: `)."""
    head, sep, rest = reason.partition(": not checked: ")
    return rest if sep else reason


def diff_records(old: dict, new: dict) -> list[str]:
    out = []
    for at in sorted(set(old["sites"]) | set(new["sites"]), key=site_key):
        a, b = old["sites"].get(at), new["sites"].get(at)
        if a == b:
            continue
        if a is None:
            out.append(f"  {at}: new site, {b['status']}" + (" (not in the reviewed file)" if b.get("unreviewed") else ""))
            continue
        if b is None:
            out.append(f"  {at}: gone from the reviewed file and the report (was {a['status']})")
            continue
        if a["status"] != b["status"]:
            out.append(f"  {at}: {a['status']} -> {b['status']}")
        for key in ("not_checked", "rows"):
            x, y = set(a.get(key, [])), set(b.get(key, []))
            out += [f"  {at}: - {key[:-1] if key == 'rows' else 'reason'}: {v}" for v in sorted(x - y)[:20]]
            out += [f"  {at}: + {key[:-1] if key == 'rows' else 'reason'}: {v}" for v in sorted(y - x)[:20]]
        for key in ("expect", "unreviewed", "lang"):
            if a.get(key) != b.get(key):
                out.append(f"  {at}: {key} {a.get(key)} -> {b.get(key)}")
    return out


def cmd_check(bless: bool, only: list[str]) -> dict:
    roots = package_roots()
    binary = occupancy_bin()
    TODAY.mkdir(exist_ok=True)
    failed = []
    all_figures = {}
    for name in CRATES["crates"]:
        if only and name not in only:
            continue
        record, figures = crate_state(binary, name, roots[name])
        all_figures[name] = figures
        path = TODAY / f"{name}.json"
        old = json.loads(path.read_text()) if path.is_file() else {"sites": {}}
        diff = diff_records(old, record)
        problems = []
        if figures["unreviewed"]:
            problems.append(f"{figures['unreviewed']} site(s) the report lists are not in reviewed/{name}.toml")
        problems += [f"{at}: the report lists it as a launch, which it is not (reviewed/{name}.toml)"
                     for at, site in record["sites"].items() if site["status"] == LISTED_NOT_A_LAUNCH]
        # Every file of the corpus parses (issue 27): a note that one does not is a regression.
        problems += figures["unparsed"]
        print(f"{name}: {len(record['sites'])} sites, rows {figures['rows']}, "
              f"{figures['number_problems']} wrong numbers, {figures['seconds']:.2f} s, "
              f"{figures['rss'] / 2**20:.0f} MiB", flush=True)
        if bless:
            path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            if diff:
                print(f"  recorded {len(diff)} change(s) in {path.relative_to(ROOT)}")
        elif diff:
            failed.append(name)
            print(f"  the report differs from {path.relative_to(ROOT)}:")
            print("\n".join(diff[:200]))
        for p in problems:
            print(f"  {p}")
            if not bless:
                failed.append(name)
    if failed:
        print(f"corpus check FAILED for {', '.join(sorted(set(failed)))}: fix the regression, or, for an "
              "improvement, run `python3 corpus/corpus.py check --bless` and commit the record with the reason")
        sys.exit(1)
    print(f"corpus: {len(all_figures)} passed, 0 failed")
    return all_figures



def cmd_sample() -> None:
    """A sample of resources/ against a fresh compile (crates.toml `sample`, sm_80 and sm_90)."""
    import tempfile
    roots = package_roots()
    nvcc = find_nvcc()
    binary = occupancy_bin()
    keys = ("registers_per_thread", "static_smem_bytes", "local_bytes", "spill_store_bytes",
            "spill_load_bytes", "barriers", "cumulative_stack_bytes")
    bad = checked = 0
    for name, spec in CRATES["crates"].items():
        if not spec.get("sample"):
            continue
        committed = json.loads((RESOURCES / f"{name}.json").read_text())
        # A kernel by (name, arch, source): the package-relative source, or the module a
        # string constant was built as (its cubin's stem).
        index = {(k["name"], k["arch"], k.get("source") or module_stem(k.get("artifact", ""))): k
                 for k in committed["kernels"]}
        compiled = {source.rel: (src, source) for src, source in sources_of(name, roots[name]).items()}
        with tempfile.TemporaryDirectory() as tmp:
            for rel in spec["sample"]:
                src = compiled[rel][0]
                for arch in ("sm_80", "sm_90"):
                    out = Path(tmp) / f"{src.stem}.{arch}.cubin"
                    subprocess.run(nvcc_command(nvcc, name, roots[name], src, arch, out),
                                   check=True, cwd=roots[name], capture_output=True)
            fresh_path = Path(tmp) / "fresh.json"
            subprocess.run([str(binary), "occupancy", "inspect", tmp, "--write-manifest",
                            str(fresh_path)], check=True, stdout=subprocess.DEVNULL)
            stems = {src.stem: source.module or source.rel
                     for src, source in (compiled[r] for r in spec["sample"])}
            for k in json.loads(fresh_path.read_text())["kernels"]:
                source = stems[Path(k["artifact"]).name.split(".")[0]]
                old = index.get((k["name"], k["arch"], source))
                checked += 1
                if old is None:
                    bad += 1
                    print(f"  {name} {source} {k['arch']} {k['name']}: not in resources/{name}.json")
                elif any(old[x] != k[x] for x in keys):
                    bad += 1
                    diffs = ", ".join(f"{x} {old[x]} -> {k[x]}" for x in keys if old[x] != k[x])
                    print(f"  {name} {source} {k['arch']} {k['name']}: {diffs}")
    print(f"corpus sample: {checked} kernel entries compiled afresh, {bad} differ from resources/")
    if bad or not checked:
        sys.exit(1)


def mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB"


def cmd_realcode() -> None:
    """docs/REALCODE.md from one run of the report over the corpus."""
    roots = package_roots()
    binary = occupancy_bin()
    lines = ["# The report on real code", "",
             "What `cargo occupancy report --all` says of every kernel launch site of the real-crate",
             "corpus (corpus/README.md): published GPU crates, each launch site reviewed by hand",
             "(`corpus/reviewed/`), their kernels' resources compiled with nvcc 13.5 for sm_80, sm_86",
             "and sm_90 (`corpus/resources/`). Regenerate with `python3 corpus/corpus.py realcode`",
             "(this page was written by it; the figures are of one run on a 2-core machine).", "",
             "A site is *numbers* when the report gives occupancy rows for every path it read, *partial*",
             "when some paths have rows and others are not checked, *not checked* when none has, and",
             "*missing* when the report does not list it. A row is *right* when a path of the code makes",
             "its (kernel, block, shared memory) as reviewed, *unverified* when the review left a value",
             "in words, *wrong* when no path makes it. A wrong number is a row whose occupancy or",
             "resources differ from the engine's answer on the committed resources. A call named like",
             "a launch that launches no kernel of the crate (a cuDNN operation's `launch`) is no launch",
             "site: the review marks it *not a launch*, and the report must not list it.", "",
             "| crate | lang | sites | reviewed: numbers | numbers | partial | not checked | missing |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    details = []
    summary = ["", "| crate | rows right | unverified | wrong | wrong numbers | findings by lint | files that do not parse | time | peak memory |",
               "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"]
    status_totals: dict = {}
    row_totals: dict = {}
    wrong_numbers = 0
    for name, spec in CRATES["crates"].items():
        record, f = crate_state(binary, name, roots[name])
        for key, n in f["status"].items():
            status_totals[key] = status_totals.get(key, 0) + n
        for key, n in f["rows"].items():
            row_totals[key] = row_totals.get(key, 0) + n
        wrong_numbers += f["number_problems"]
        for lang in sorted(f["by_lang"]):
            n = f["by_lang"][lang]
            st = lambda s: f["status"].get((lang, s), 0)
            lines.append(f"| {name} {spec['version']} | {'C++' if lang == 'cuda' else 'Rust'} | {n['sites']} | "
                         f"{n['expect_numbers']} | {st('numbers')} | {st('partial')} | {st('not checked')} | {st('missing')} |")
        lints = ", ".join(f"{k} {v}" for k, v in sorted(f["lints"].items())) or "none"
        r = f["rows"]
        summary.append(f"| {name} | {r.get('match', 0)} | {r.get('unverified', 0)} | {r.get('wrong', 0)} | "
                       f"{f['number_problems']} | {lints} | {len(f['unparsed'])} | {f['seconds']:.1f} s | {mib(f['rss'])} |")
        reasons: dict[str, int] = {}
        for at, site in record["sites"].items():
            if site["status"] in ("not checked", "partial"):
                for reason in site.get("not_checked", [])[:1]:
                    key = reason if len(reason) < 110 else reason[:107] + "..."
                    reasons[key] = reasons.get(key, 0) + 1
            if site["status"] == "missing":
                reasons["not listed by the report"] = reasons.get("not listed by the report", 0) + 1
        if reasons:
            details += ["", f"### {name}: sites without numbers, by the report's first reason", ""]
            details += [f"- {n} x {reason.replace('|', '/')}" for reason, n in sorted(reasons.items(), key=lambda x: -x[1])[:12]]
        if spec.get("no_resources"):
            details += ["", f"{name}: no resources: {spec['no_resources']}."]
    totals = ["", "In all:", ""]
    for lang, label in (("rust", "Rust"), ("cuda", "CUDA C++")):
        sites = sum(n for (l, st), n in status_totals.items()
                    if l == lang and st not in (NOT_A_LAUNCH, LISTED_NOT_A_LAUNCH))
        numbers = status_totals.get((lang, "numbers"), 0)
        listed = sites - status_totals.get((lang, "missing"), 0)
        totals.append(f"- {label}: {sites} launch sites, {listed} listed by the report, {numbers} with "
                      f"numbers on every path ({100 * numbers / max(sites, 1):.1f}%), "
                      f"{status_totals.get((lang, 'partial'), 0)} on some paths.")
        others = status_totals.get((lang, NOT_A_LAUNCH), 0) + status_totals.get((lang, LISTED_NOT_A_LAUNCH), 0)
        if others:
            totals.append(f"- {label}: {others} calls named like a launch that launch no kernel of the crate "
                          f"(cuDNN operations), {status_totals.get((lang, LISTED_NOT_A_LAUNCH), 0)} "
                          f"of them listed by the report as launches.")
    totals.append(f"- Rows: {row_totals.get('match', 0)} right, {row_totals.get('unverified', 0)} "
                  f"unverified, {row_totals.get('wrong', 0)} on launches no path makes; "
                  f"{wrong_numbers} wrong numbers.")
    text = "\n".join(lines + summary + totals + ["", "## Why sites have no numbers"] + details) + "\n"
    (ROOT / "docs" / "REALCODE.md").write_text(text)
    print("wrote docs/REALCODE.md")


def main(argv: list[str]) -> None:
    if not argv:
        die(__doc__)
    cmd, rest = argv[0], argv[1:]
    if cmd == "fetch":
        for name, root in package_roots().items():
            print(f"{name}\t{root}")
    elif cmd == "resources":
        cmd_resources(rest)
    elif cmd == "check":
        cmd_check("--bless" in rest, [r for r in rest if not r.startswith("--")])
    elif cmd == "sample":
        cmd_sample()
    elif cmd == "realcode":
        cmd_realcode()
    elif cmd == "compile-offline":
        cmd_compile_offline(rest)
    elif cmd == "finish":
        cmd_finish(rest)
    elif cmd == "manifest":
        cmd_resources(rest, manifest_only=True)
    elif cmd == "compile":
        cmd_resources(rest, compile_only=True)
    else:
        die(f"unknown command {cmd!r}\n{__doc__}")


if __name__ == "__main__":
    main(sys.argv[1:])
