"""Profile benchmark (issue 6): our perf script folding against FlameGraph's stackcollapse-perf.pl
on the same few hundred MB, and the diff of two 50,000-frame profiles.

    .venv/bin/python bench/profiles_bench.py [--mb 300] [--repeat 3] [--workdir /tmp/x]
        [--stackcollapse /path/to/stackcollapse-perf.pl | --flamegraph-git /path/to/FlameGraph.git]

Input: the four real nginx-proxy-buffers captures (tests/fixtures/profiles, 5.2 MB of perf script
together) concatenated until the file reaches --mb, written to a temporary directory (never to
the repository). FlameGraph is not part of perflab and is never copied into it: the script is
taken from --stackcollapse, else $FLAMEGRAPH_DIR/stackcollapse-perf.pl, else `git show` from a
FlameGraph git directory (--flamegraph-git or $FLAMEGRAPH_GIT), else a shallow clone of
github.com/brendangregg/FlameGraph into the temporary directory; it runs there with perl.

Both sides do the same job: read the file, fold it, write the folded text; the outputs must be
byte-identical. Timings are the best of --repeat runs, alternating the two tools (the machine is
shared; the best run is the least disturbed). Also measured: the same on one copy of the
captures (5 MB, where our caches help least), and diff_profiles on two synthetic profiles of
50,000 distinct frames (CPU time, target <= 200 ms). Results: bench/results/profiles.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CAPTURES = ROOT / "tests" / "fixtures" / "profiles" / "nginx-proxy-buffers"
RESULTS = ROOT / "bench" / "results" / "profiles.json"
EXPERIMENTS = ("direct", "default", "buffers-128x4k", "buffers-4x128k")
sys.path.insert(0, str(ROOT / "backend"))

from perflab.parsers.profiles import (
    Profile,
    diff_profiles,
    function_table,
    load_profile,
    to_folded,
    tree,
)

FLAMEGRAPH_URL = "https://github.com/brendangregg/FlameGraph"


def find_stackcollapse(args: argparse.Namespace, workdir: Path) -> Path:
    if args.stackcollapse:
        return Path(args.stackcollapse)
    env_dir = os.environ.get("FLAMEGRAPH_DIR")
    if env_dir and (Path(env_dir) / "stackcollapse-perf.pl").exists():
        return Path(env_dir) / "stackcollapse-perf.pl"
    target = workdir / "stackcollapse-perf.pl"
    git_dir = args.flamegraph_git or os.environ.get("FLAMEGRAPH_GIT")
    if not git_dir:
        clone = workdir / "FlameGraph"
        cloned = subprocess.run(["git", "clone", "-q", "--depth", "1", FLAMEGRAPH_URL, str(clone)])
        if cloned.returncode != 0:
            raise SystemExit(f"could not clone {FLAMEGRAPH_URL}: set FLAMEGRAPH_DIR to a FlameGraph checkout, or "
                             "FLAMEGRAPH_GIT to its git directory, to compare against stackcollapse-perf.pl")
        git_dir = str(clone / ".git")
    script = subprocess.run(
        ["git", "--git-dir", git_dir, "show", "HEAD:stackcollapse-perf.pl"],
        check=True,
        capture_output=True,
    ).stdout
    target.write_bytes(script)
    return target


def build_input(path: Path, megabytes: int) -> dict[str, Any]:
    one = b"".join(gzip.decompress((CAPTURES / e / "perf-script.txt.gz").read_bytes()) for e in EXPERIMENTS)
    copies = max(1, -(-megabytes * 1_000_000 // len(one)))
    with path.open("wb") as out:
        for _ in range(copies):
            out.write(one)
    return {"bytes": path.stat().st_size, "copies_of_the_captures": copies, "samples": one.count(b"\n\n") * copies}


def run_perl(script: Path, src: Path, out: Path) -> float:
    t0 = time.perf_counter()
    with out.open("wb") as fh:
        subprocess.run(["perl", str(script), str(src)], stdout=fh, stderr=subprocess.DEVNULL, check=True, cwd=script.parent)
    return time.perf_counter() - t0


def run_ours(src: Path, out: Path) -> float:
    t0 = time.perf_counter()
    profile = load_profile(src.read_bytes(), max_bytes=1 << 40)
    out.write_bytes(to_folded(profile))
    return time.perf_counter() - t0


def fold_bench(script: Path, src: Path, workdir: Path, repeat: int) -> dict[str, Any]:
    perl_out, ours_out = workdir / "perl.folded", workdir / "ours.folded"
    perl: list[float] = []
    ours: list[float] = []
    for _ in range(repeat):
        perl.append(run_perl(script, src, perl_out))
        ours.append(run_ours(src, ours_out))
    same = perl_out.read_bytes() == ours_out.read_bytes()
    return {
        "input_mb": round(src.stat().st_size / 1e6, 1),
        "same_output": same,
        "stacks": perl_out.read_bytes().count(b"\n"),
        "stackcollapse_perf_pl_s": round(min(perl), 3),
        "stackcollapse_perf_pl_runs_s": [round(t, 3) for t in perl],
        "perflab_s": round(min(ours), 3),
        "perflab_runs_s": [round(t, 3) for t in ours],
        "perflab_mb_per_s": round(src.stat().st_size / 1e6 / min(ours), 1),
        "ratio": round(min(perl) / min(ours), 2),
    }


def synthetic(frames: int, seed: int, names: int = 8000) -> dict[str, int]:
    """A random call tree of exactly ``frames`` distinct frame paths (mean depth ~20), with
    counts on every leaf and on 30% of the inner frames; names repeat, so some stacks recurse."""
    rng = random.Random(seed)
    pool = [f"fn_{i:05d}" for i in range(names)]
    paths = [""]
    kids: list[set[str]] = [set()]
    while len(paths) <= frames:
        if rng.random() < 0.3:
            parent = rng.randrange(len(paths))
        else:
            parent = len(paths) - 1 - min(int(rng.expovariate(0.05)), len(paths) - 1)
        name = rng.choice(pool)
        if name in kids[parent]:
            continue
        kids[parent].add(name)
        paths.append(f"{paths[parent]};{name}" if paths[parent] else name)
        kids.append(set())
    return {p: rng.randint(1, 1000) for i, p in enumerate(paths) if i and (not kids[i] or rng.random() < 0.3)}


def variant(stacks: dict[str, int], seed: int) -> dict[str, int]:
    """The "other" experiment: 5% of the stacks gone, 15% reweighted, and a new subtree of about
    2,500 frames (so it has about as many distinct frames as the base, not all the same)."""
    rng = random.Random(seed)
    out: dict[str, int] = {}
    for stack, count in stacks.items():
        r = rng.random()
        if r < 0.05:
            continue
        out[stack] = count if r > 0.2 else rng.randint(1, 2000)
    for stack, count in synthetic(2_500, seed + 1000, names=500).items():
        out["new_" + stack] = count
    return out


def cpu_best(fn: Any, repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times), times


def diff_bench(repeat: int) -> dict[str, Any]:
    base = Profile(synthetic(50_000, 1))
    other = Profile(variant(base.stacks, 2))
    secs, runs = cpu_best(lambda: diff_profiles(base, other), repeat)
    wall0 = time.perf_counter()
    d = diff_profiles(base, other)
    wall = time.perf_counter() - wall0
    tree_s, _ = cpu_best(lambda: tree(base), repeat)
    table_s, _ = cpu_best(lambda: function_table(base), repeat)
    return {
        "frames": [base.frames, other.frames],
        "stacks": [len(base.stacks), len(other.stacks)],
        "merged_nodes": len(d.name) - 1,
        "functions": len(d.functions),
        "diff_ms": round(secs * 1000, 1),
        "diff_runs_ms": [round(t * 1000, 1) for t in runs],
        "diff_wall_ms_once": round(wall * 1000, 1),
        "tree_ms": round(tree_s * 1000, 1),
        "function_table_ms": round(table_s * 1000, 1),
        "target_ms": 200,
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--mb", type=int, default=300, help="size of the big perf script input")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=None, help="where the big input goes (default: a temp dir)")
    ap.add_argument("--stackcollapse", help="path to FlameGraph's stackcollapse-perf.pl")
    ap.add_argument("--flamegraph-git", help="a FlameGraph git directory to take the script from")
    ap.add_argument("--keep", action="store_true", help="keep the generated input")
    ap.add_argument("--only", choices=("fold", "diff"), help="rerun one part, keep the other's figures")
    args = ap.parse_args(argv)
    previous = json.loads(RESULTS.read_text()) if args.only and RESULTS.exists() else {}

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="perflab-profiles-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {**previous}
    try:
        if args.only != "diff":
            result.update(fold_part(args, workdir))
        if args.only != "fold":
            diff = diff_bench(max(args.repeat, 7))
            print(f"diff of two {diff['frames']} frame profiles: {diff['diff_ms']} ms CPU "
                  f"(tree {diff['tree_ms']} ms, function table {diff['function_table_ms']} ms)", flush=True)
            result["diff_profiles"] = diff
        version = subprocess.run(["perl", "-e", "print $^V"], check=True, capture_output=True, text=True).stdout
        result["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        result["machine"] = {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "perl": version,
            "load_average_1m": round(os.getloadavg()[0], 2),
            # A fixed pure-Python loop: compare machines (and moments) before comparing figures.
            "python_loop_1m_iterations_ms": calibration_ms(),
        }
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n")
        print(f"results in {RESULTS.relative_to(ROOT)}")
        folds = [result.get(k, {}) for k in ("fold_perf_script", "fold_perf_script_small")]
        return 0 if all(f.get("same_output", False) for f in folds) else 1
    finally:
        if not args.keep and args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)


def calibration_ms() -> float:
    best_s = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        x = 0
        for i in range(1_000_000):
            x += i
        best_s = min(best_s, time.process_time() - t0)
    return round(best_s * 1000, 1)


def fold_part(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    script = find_stackcollapse(args, workdir)
    small = workdir / "captures-once.txt"
    big = workdir / "captures-repeated.txt"
    small_info = build_input(small, 1)
    big_info = build_input(big, args.mb)
    print(f"input: {big_info['bytes'] / 1e6:.0f} MB ({big_info['copies_of_the_captures']} copies), "
          f"{big_info['samples']:,} samples", flush=True)
    fold_big = fold_bench(script, big, workdir, args.repeat)
    print(f"fold {fold_big['input_mb']} MB: stackcollapse-perf.pl {fold_big['stackcollapse_perf_pl_s']} s, "
          f"perflab {fold_big['perflab_s']} s -> {fold_big['ratio']}x, same output: {fold_big['same_output']}",
          flush=True)
    big.unlink()
    fold_small = fold_bench(script, small, workdir, max(args.repeat, 5))
    print(f"fold {fold_small['input_mb']} MB: {fold_small['ratio']}x, same output: {fold_small['same_output']}",
          flush=True)
    return {
        "fold_perf_script": {
            **fold_big,
            "input": big_info,
            "target_ratio": 5.0,
            "note": "read + fold + write the folded text, both tools; the big input repeats the "
            "captures, so stacks repeat as they do in long recordings",
        },
        "fold_perf_script_small": {
            **fold_small,
            "input": small_info,
            "note": "one copy of the four captures: most stacks seen once, our caches help least",
        },
    }


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
