"""Benchmark: 100 soft checks against the local fake LLM server (200 ms per answer).

    .venv/bin/python bench/bench_soft.py [--n 100] [--latency 0.2] [--concurrency 16]

Measures: sequential (concurrency 1) vs concurrent, a rerun on a warm disk cache, and
judging runs whose LLM-judged arguments are identical to the oracle's (equality pre-check).
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conformance import CASES  # noqa: E402  (tests/conformance.py: the ARE cases copy)
from llm_server import FakeLLMServer  # noqa: E402

from pytest_are_judge.judge import GraphPerEventJudge, GraphPerEventJudgeConfig  # noqa: E402
from pytest_are_judge.model import UserDetails  # noqa: E402
from pytest_are_judge.soft import build_soft_judge, reset_usage, usage_totals  # noqa: E402
from pytest_are_judge.soft.api import SoftRequest  # noqa: E402


def requests(n: int) -> list[SoftRequest]:
    user = UserDetails(first_name="Sam", last_name="Rivera", address="12 Oak Street")
    return [
        SoftRequest(
            tool_name="CabApp__order_ride",
            agent_args={"start_location": "12 Oak Street", "end_location": f"Airport terminal {i}"},
            oracle_args={"start_location": "Home", "end_location": "Airport"},
            llm_args=["start_location", "end_location"],
            oracle_event_id=f"o{i}",
            agent_event_id=f"a{i}",
            tasks=["Book a cab from home to the airport\n"],
            user=user,
            oracle_event_time=1728290000.0,
        )
        for i in range(n)
    ]


def one_turn_run(n: int):
    """One turn: the user asks for n rides; the agent orders them, worded differently."""
    from builders import run, scenario

    rides = [
        {
            "id": f"ride{i}",
            "tool": "CabApp.order_ride",
            "args": {"start_location": "Home", "end_location": f"Office {i}", "service_type": "Default"},
            "after": ["user_msg"],
            "delay": 0.5,
        }
        for i in range(n)
    ]
    agent = [
        {
            "tool": "CabApp.order_ride",
            "args": {"start_location": "home", "end_location": f"office number {i}", "service_type": "Default"},
            "time": 1.1 + i / 100,
        }
        for i in range(n)
    ]
    return run(scenario(rides), agent)


def cfg(server: FakeLLMServer, **opts) -> GraphPerEventJudgeConfig:
    return GraphPerEventJudgeConfig(
        llm=True, judge_provider="openai", judge_endpoint=server.base_url, judge_model="judge", llm_options=opts
    )


def timed(server: FakeLLMServer, label: str, fn) -> dict:
    before = server.call_count
    reset_usage()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    row = {"label": label, "seconds": round(dt, 3), "server_calls": server.call_count - before, **usage_totals()}
    row["all_pass"] = all(getattr(v, "passed", getattr(v, "success", None)) for v in out)
    print(
        f"{label:<44} {dt:8.3f} s   calls={row['server_calls']:<4} cache_hits={row['cache_hits']:<4} pass={row['all_pass']}"
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=None, help="default: llm_options' default")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    reqs = requests(a.n)
    rows = []
    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        build_soft_judge(cfg(server)).check_many(requests(1))  # import litellm outside the timings
        server.latency = a.latency
        cache = str(Path(tmp) / "verdicts.jsonl")
        rows.append(
            timed(
                server,
                f"sequential (concurrency 1), {a.n} checks",
                lambda: build_soft_judge(cfg(server, concurrency=1, memory_cache=False)).check_many(reqs),
            )
        )
        conc = {"concurrency": a.concurrency} if a.concurrency else {}
        label = f"concurrency {a.concurrency}" if a.concurrency else "default concurrency"
        rows.append(
            timed(
                server,
                f"concurrent ({label}), {a.n} checks",
                lambda: build_soft_judge(cfg(server, cache_path=cache, **conc)).check_many(reqs),
            )
        )
        rows.append(
            timed(
                server,
                "rerun on the warm disk cache",
                lambda: build_soft_judge(cfg(server, cache_path=cache, **conc)).check_many(reqs),
            )
        )
        rows.append(
            timed(
                server,
                "replay-only rerun (CI mode)",
                lambda: build_soft_judge(cfg(server, cache_path=cache, replay_only=True)).check_many(reqs),
            )
        )
        case = CASES / "cab__replay__exact_ids"
        if case.is_dir():
            from pytest_are_judge.readers import load_file

            oracle = json.loads((case / "oracle.json").read_text())
            run = load_file(case / "agent.json", oracle=oracle, oracle_file=str(case / "oracle.json")).runs[0]
            judge = GraphPerEventJudge(cfg(server))
            rows.append(
                timed(
                    server,
                    f"{a.n} runs with identical LLM args (ARE case)",
                    lambda: [judge.judge_run(run) for _ in range(a.n)],
                )
            )
        # one run, one turn, 20 rides whose destinations the LLM must judge
        rides = one_turn_run(20)
        for spec in (False, True):
            rows.append(
                timed(
                    server,
                    f"one run, 20 soft-checked rides, speculate={spec}",
                    lambda spec=spec: [
                        GraphPerEventJudge(cfg(server, speculate=spec, memory_cache=True)).judge_run(rides)
                    ],
                )
            )
    seq, conc_s = rows[0]["seconds"], rows[1]["seconds"]
    print(f"speed-up concurrent vs sequential: {seq / conc_s:.1f}x")
    plain, ahead = rows[-2]["seconds"], rows[-1]["seconds"]
    print(f"speed-up of speculation within one run: {plain / ahead:.1f}x")
    if a.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
