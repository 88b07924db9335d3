"""Benchmark of the pytest plugin (numbers go to docs/benchmarks.md, section "Plugin").

    python bench/bench_plugin.py [--n 2000] [--repeat 5] [--startup-repeat 15]

Measures repeated subprocess runs (wall clock, and CPU time of the pytest process), interleaved
(one run of every case per round, so a slow spell of a shared machine hits every case alike);
reports the median and the minimum wall clock and the median CPU time of each case, and computes
the per-item figures from each:
- collection + judging of N generated native scenarios (one run each, one file each) vs N trivial
  parametrised tests in one file, with ``-n 0`` and ``-n 2``, vs N trivial tests in N files, and
  vs pytest's floor (a minimal collector yielding one empty item per file, N files);
- startup (``pytest --co`` of one trivial test) with the plugin installed but unused vs
  ``-p no:are_judge``;
- one judged scenario, for the marginal cost of a scenario (the plugin's one-time costs left out).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCENARIO = """format: are-judge/scenario-v1
scenario_id: gen_{i}
apps: {{EmailClientV2: EmailClientV2, Shopping: ShoppingApp}}
events:
  - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {{content: "order {i}"}}}}
  - {{id: cart, tool: Shopping.add_to_cart, after: [u], args: {{item_id: item-{i}, quantity: {q}}}}}
  - {{id: pay, tool: Shopping.checkout, after: [cart], args: {{discount_code: CODE{i}}}}}
  - {{id: mail, tool: EmailClientV2.send_email, after: [pay], args: {{recipients: [u{i}@x.org], subject: s, content: c}}}}
runs:
  - id: r
    {expect}
    events:
      - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {{content: "order {i}"}}}}
      - {{tool: Shopping.add_to_cart, time: 1, args: {{item_id: item-{i}, quantity: {aq}}}}}
      - {{tool: Shopping.checkout, time: 2, args: {{discount_code: CODE{i}}}}}
      - {{tool: EmailClientV2.send_email, time: 3, args: {{recipients: [u{i}@x.org], subject: s, content: c}}}}
"""

FLOOR_CONFTEST = """import pytest


class Item(pytest.Item):
    def runtest(self):
        pass


class File(pytest.File):
    def collect(self):
        self.path.read_bytes()
        return [Item.from_parent(self, name="run")]


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".json":
        return File.from_parent(parent, path=file_path)
"""

TRIVIAL = """import pytest

@pytest.mark.parametrize("i", range({n}))
def test_trivial(i):
    assert i >= 0
"""


def run(args: list[str], cwd: Path) -> tuple[float, float]:
    # Bytecode caching on, as on a developer machine or CI (this container sets
    # PYTHONDONTWRITEBYTECODE=1, which would recompile, and assertion-rewrite, every imported
    # module of ours on every run and bill that to the per-item numbers).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
    )
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 5):
        raise SystemExit(
            f"pytest {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    # CPU time (user + system) of the pytest process and its children: less sensitive than the
    # wall clock to other tenants of a shared machine
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return dt, cpu


def interleaved(
    cases: dict[str, tuple[list[str], Path]], rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall-clock and CPU times of each case, ``rounds`` interleaved runs after a warm-up."""
    for args, cwd in cases.values():
        run(args, cwd)  # warm-up (pyc, fs cache)
    times: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (args, cwd) in cases.items():
            wall, used = run(args, cwd)
            times[name].append(wall)
            cpu[name].append(used)
    return times, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--startup-repeat", type=int, default=15)
    ap.add_argument(
        "--format", choices=("yaml", "json"), default="yaml", help="file format of the generated native scenarios"
    )
    ns = ap.parse_args()
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sc = root / "sc"
        sc.mkdir()
        for i in range(ns.n):
            bad = i % 10 == 0  # 10% known-bad runs (xfail)
            text = SCENARIO.format(
                i=i, q=1 + i % 3, aq=(2 + i % 3) if bad else (1 + i % 3), expect="expect: fail" if bad else ""
            )
            if ns.format == "json":
                import yaml

                (sc / f"s{i:05d}.json").write_text(json.dumps(yaml.safe_load(text)))
            else:
                (sc / f"s{i:05d}.yaml").write_text(text)
        tr = root / "trivial"
        tr.mkdir()
        (tr / "test_trivial.py").write_text(TRIVIAL.format(n=ns.n))
        files = root / "trivial_files"  # the same trivial test, one file per test, like one scenario per file
        files.mkdir()
        for i in range(ns.n):
            (files / f"test_{i:05d}.py").write_text("def test_trivial():\n    assert True\n")
        floor = root / "floor"  # pytest's own floor: a minimal collector, one empty item per file
        (floor / "sc").mkdir(parents=True)
        (floor / "conftest.py").write_text(FLOOR_CONFTEST)
        for i in range(ns.n):
            (floor / "sc" / f"s{i:05d}.json").write_text("{}")
        one = root / "one"
        one.mkdir()
        (one / "test_one.py").write_text("def test_one():\n    pass\n")
        one_sc = root / "one_scenario"  # the plugin at work on one scenario: its one-time costs
        one_sc.mkdir()
        first = next(iter(sorted(sc.iterdir())))
        (one_sc / first.name).write_bytes(first.read_bytes())
        base = ["-q", "-p", "no:randomly"]
        startup, startup_cpu = interleaved(
            {
                "startup_plugin_unused_s": ([*base, "--co", "-p", "no:xdist"], one),
                "startup_plugin_disabled_s": ([*base, "--co", "-p", "no:xdist", "-p", "no:are_judge"], one),
            },
            ns.startup_repeat,
        )
        main_cases, main_cpu = interleaved(
            {
                "trivial_n0_s": ([*base, "-p", "no:xdist", str(tr)], root),
                "trivial_files_n0_s": ([*base, "-p", "no:xdist", str(files)], root),
                "floor_collector_n0_s": ([*base, "-p", "no:xdist", "sc"], floor),
                "scenarios_n0_s": ([*base, "-p", "no:xdist", "--are-scenarios", str(sc)], root),
                "one_scenario_n0_s": ([*base, "-p", "no:xdist", "--are-scenarios", str(one_sc)], root),
                "scenarios_collect_only_s": ([*base, "-p", "no:xdist", "--co", "--are-scenarios", str(sc)], root),
                "trivial_n2_s": ([*base, "-n", "2", str(tr)], root),
                "scenarios_n2_s": ([*base, "-n", "2", "--are-scenarios", str(sc)], root),
            },
            ns.repeat,
        )
    for stat_name, stat, series in (
        ("median", statistics.median, {**startup, **main_cases}),
        ("min", min, {**startup, **main_cases}),
        ("cpu_median", statistics.median, {**startup_cpu, **main_cpu}),
    ):
        got = {name: stat(ts) for name, ts in series.items()}
        fixed = got["startup_plugin_unused_s"]
        got["per_item_trivial_ms"] = 1000 * (got["trivial_n0_s"] - fixed) / ns.n
        got["per_item_scenario_ms"] = 1000 * (got["scenarios_n0_s"] - fixed) / ns.n
        got["per_item_ratio"] = got["per_item_scenario_ms"] / got["per_item_trivial_ms"]
        # marginal cost of a scenario: without the plugin's one-time costs (imports of pydantic,
        # the models and the judge, a session summary), i.e. measured from one judged scenario
        got["per_item_scenario_marginal_ms"] = 1000 * (got["scenarios_n0_s"] - got["one_scenario_n0_s"]) / (ns.n - 1)
        got["per_item_ratio_marginal"] = got["per_item_scenario_marginal_ms"] / got["per_item_trivial_ms"]
        got["per_item_trivial_files_ms"] = 1000 * (got["trivial_files_n0_s"] - fixed) / ns.n
        got["per_item_ratio_vs_files"] = got["per_item_scenario_ms"] / got["per_item_trivial_files_ms"]
        got["startup_overhead_pct"] = 100 * (got["startup_plugin_unused_s"] / got["startup_plugin_disabled_s"] - 1)
        out[stat_name] = got  # type: ignore[assignment]
    out["n"] = ns.n
    out["format"] = ns.format  # type: ignore[assignment]

    def rounded(v: object) -> object:
        if isinstance(v, dict):
            return {k: rounded(x) for k, x in v.items()}
        return round(v, 4) if isinstance(v, float) else v

    print(json.dumps(rounded(out), indent=2))


if __name__ == "__main__":
    main()
