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
import tempfile
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
    from conformance import CASES

    cases = sorted(p for p in CASES.iterdir() if (p / "agent.json").is_file())
    if not cases:
        raise SystemExit(f"no ARE cases under {CASES}")
    exe = shutil.which("are-judge") or str(Path(sys.executable).parent / "are-judge")
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n_runs):
            c = cases[i % len(cases)]
            d = Path(tmp) / f"run{i:04d}"
            d.mkdir()
            shutil.copy(c / "agent.json", d / "agent.json")
            shutil.copy(c / "oracle.json", d / "oracle.json")
        for label, args in (("agent + oracle trace per run", [tmp]),):
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                r = subprocess.run([exe, *args, "--json"], capture_output=True, text=True)
                times.append(time.perf_counter() - t0)
                lines = r.stdout.count("\n")
                if lines != n_runs or r.returncode not in (0, 1):
                    raise SystemExit(f"unexpected result: exit {r.returncode}, {lines} lines\n{r.stderr[-2000:]}")
            print(
                f"| {n_runs} ARE runs ({label}, {2 * n_runs} files) | median {statistics.median(times):.2f} s | min {min(times):.2f} s | {repeats} repeats |"
            )


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
