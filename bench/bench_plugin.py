"""Benchmark of the pytest plugin (numbers go to docs/benchmarks.md, section "Plugin").

    python bench/bench_plugin.py [--n 2000] [--repeat 5] [--startup-repeat 15]

Measures, as medians of repeated subprocess runs (wall clock):
- collection + judging of N generated native scenarios (one run each) vs N trivial
  parametrised tests, with ``-n 0`` and ``-n 2``;
- startup (``pytest --co`` of one trivial test) with the plugin installed but unused vs
  ``-p no:are_judge``.
"""

from __future__ import annotations

import argparse
import json
import os
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

TRIVIAL = """import pytest

@pytest.mark.parametrize("i", range({n}))
def test_trivial(i):
    assert i >= 0
"""


def run(args: list[str], cwd: Path) -> float:
    # Bytecode caching on, as on a developer machine or CI (this container sets
    # PYTHONDONTWRITEBYTECODE=1, which would recompile, and assertion-rewrite, every imported
    # module of ours on every run and bill that to the per-item numbers).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONDONTWRITEBYTECODE"}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if proc.returncode not in (0, 5):
        raise SystemExit(f"pytest {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return dt


def median(args: list[str], cwd: Path, repeat: int) -> float:
    run(args, cwd)  # warm-up (pyc, fs cache)
    return statistics.median(run(args, cwd) for _ in range(repeat))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--startup-repeat", type=int, default=15)
    ap.add_argument("--format", choices=("yaml", "json"), default="yaml", help="file format of the generated native scenarios")
    ns = ap.parse_args()
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sc = root / "sc"
        sc.mkdir()
        for i in range(ns.n):
            bad = i % 10 == 0  # 10% known-bad runs (xfail)
            text = SCENARIO.format(i=i, q=1 + i % 3, aq=(2 + i % 3) if bad else (1 + i % 3), expect="expect: fail" if bad else "")
            if ns.format == "json":
                import yaml

                (sc / f"s{i:05d}.json").write_text(json.dumps(yaml.safe_load(text)))
            else:
                (sc / f"s{i:05d}.yaml").write_text(text)
        tr = root / "trivial"
        tr.mkdir()
        (tr / "test_trivial.py").write_text(TRIVIAL.format(n=ns.n))
        one = root / "one"
        one.mkdir()
        (one / "test_one.py").write_text("def test_one():\n    pass\n")
        base = ["-q", "-p", "no:randomly"]
        out["startup_plugin_unused_s"] = median([*base, "--co", "-p", "no:xdist"], one, ns.startup_repeat)
        out["startup_plugin_disabled_s"] = median([*base, "--co", "-p", "no:xdist", "-p", "no:are_judge"], one, ns.startup_repeat)
        out["trivial_n0_s"] = median([*base, "-p", "no:xdist", str(tr)], root, ns.repeat)
        out["scenarios_n0_s"] = median([*base, "-p", "no:xdist", "--are-scenarios", str(sc)], root, ns.repeat)
        out["scenarios_collect_only_s"] = median([*base, "-p", "no:xdist", "--co", "--are-scenarios", str(sc)], root, ns.repeat)
        out["trivial_n2_s"] = median([*base, "-n", "2", str(tr)], root, ns.repeat)
        out["scenarios_n2_s"] = median([*base, "-n", "2", "--are-scenarios", str(sc)], root, ns.repeat)
    fixed = out["startup_plugin_unused_s"]
    out["per_item_trivial_ms"] = 1000 * (out["trivial_n0_s"] - fixed) / ns.n
    out["per_item_scenario_ms"] = 1000 * (out["scenarios_n0_s"] - fixed) / ns.n
    out["per_item_ratio"] = out["per_item_scenario_ms"] / out["per_item_trivial_ms"]
    out["startup_overhead_pct"] = 100 * (out["startup_plugin_unused_s"] / out["startup_plugin_disabled_s"] - 1)
    out["n"] = ns.n
    out["format"] = ns.format  # type: ignore[assignment]
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}, indent=2))


if __name__ == "__main__":
    main()
