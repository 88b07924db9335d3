"""Judge-core benchmarks (reproducible; see docs/benchmarks.md).

    python bench/bench_judge.py            # both parts
    python bench/bench_judge.py --scaling  # throughput on generated traces, 10 to 10,000 events
    python bench/bench_judge.py --e2e      # 500 real ARE traces through one `are-judge` process

The end-to-end part uses the ARE cases in tests/data/are/cases (or ARE_SHARED_DATA).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from generate import make_run  # noqa: E402


def scaling(sizes: list[int], repeats: int) -> None:
    from pytest_are_judge.judge import GraphPerEventJudge

    judge = GraphPerEventJudge()
    print("| oracle events | agent events | median time | events/s | time / event |")
    print("|---:|---:|---:|---:|---:|")
    for n in sizes:
        run = make_run(n)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            res = judge.judge_run(run)
            times.append(time.perf_counter() - t0)
            assert res.success, res.render()
        med = statistics.median(times)
        print(f"| {n:,} | {len(run.events):,} | {med * 1000:.1f} ms | {n / med:,.0f} | {med / n * 1e6:.1f} µs |")


def e2e(n_runs: int, repeats: int) -> None:
    r"""``are-judge CASES --json`` over the labelled cases, side by side (interleaved) with a Python
    process that only ``json.load``\ s the same files: the ratio is the number to watch."""
    from conformance import CASES

    exe = shutil.which("are-judge") or str(Path(sys.executable).parent / "are-judge")
    load_only = (
        "import json, pathlib\n"
        f"for f in sorted(pathlib.Path({str(CASES)!r}).rglob('*.json')): json.loads(f.read_bytes())\n"
    )
    judge_t, load_t = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = subprocess.run([exe, str(CASES), "--json"], capture_output=True, text=True)
        judge_t.append(time.perf_counter() - t0)
        if r.returncode not in (0, 1) or not r.stdout:
            raise SystemExit(f"unexpected result: exit {r.returncode}\n{r.stderr[-2000:]}")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", load_only], check=True)
        load_t.append(time.perf_counter() - t0)
    n_files = len(list(CASES.rglob("*.json")))
    jm, lm = statistics.median(judge_t), statistics.median(load_t)
    print(
        f"| are-judge over {n_files} files of the labelled cases (--json) | median {jm:.3f} s | min {min(judge_t):.3f} s |"
    )
    print(f"| python json.load of the same files | median {lm:.3f} s | min {min(load_t):.3f} s |")
    print(f"| ratio (medians) | {jm / lm:.1f}x | | {repeats} interleaved repeats |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument("--e2e", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--sizes", default="10,100,1000,3000,10000")
    a = ap.parse_args()
    both = not (a.scaling or a.e2e)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    if a.scaling or both:
        scaling([int(s) for s in a.sizes.split(",")], a.repeats)
    if a.e2e or both:
        print()
        e2e(a.runs, a.repeats)


if __name__ == "__main__":
    main()
