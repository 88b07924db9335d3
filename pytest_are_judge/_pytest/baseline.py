"""Baselines: per-run verdicts (and per-scenario repeat counts) saved by one session and
compared by a later one.

Schema v2 adds ``repeats: {scenario_id: {"n": runs, "c": passed}}`` to v1's ``runs``; v1 files
still load (their repeat counts are rebuilt from the runs' ``scenario_id`` and verdict)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypedDict

import pytest

from ..repeats import Counts

BASELINE_SCHEMA = "pytest-are-judge/baseline-v2"
BASELINE_SCHEMAS = ("pytest-are-judge/baseline-v1", BASELINE_SCHEMA)


class BaselineEntry(TypedDict):
    verdict: str
    """pass | fail | error"""
    scenario_id: str | None
    run_id: str | None
    failure_kind: str | None


class BaselineFile(TypedDict):
    """What ``--are-save-baseline`` writes."""

    schema: str
    runs: dict[str, BaselineEntry]
    """by pytest node id"""
    repeats: dict[str, Counts]


def load_baseline(path: str) -> dict[str, str]:
    """``{nodeid: "pass"|"fail"|"error"}`` from a baseline file (a usage error if unreadable)."""
    return load_baseline_data(path)[0]


def load_baseline_data(path: str) -> tuple[dict[str, str], dict[str, Counts]]:
    """``(verdicts, repeats)``: ``{nodeid: verdict}`` and ``{scenario_id: {"n", "c"}}``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise pytest.UsageError(f"--are-baseline: cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise pytest.UsageError(f"--are-baseline: {path} is not valid JSON (line {exc.lineno}): {exc.msg}") from None
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("schema") not in BASELINE_SCHEMAS or not isinstance(runs, dict):
        raise pytest.UsageError(f"--are-baseline: {path} is not a pytest-are-judge baseline (schema {BASELINE_SCHEMA})")
    out: dict[str, str] = {}
    for nodeid, entry in runs.items():
        verdict = entry.get("verdict") if isinstance(entry, dict) else entry
        if verdict not in ("pass", "fail", "error"):
            raise pytest.UsageError(
                f"--are-baseline: {path}: run {nodeid!r} has verdict {verdict!r} (expected pass, fail or error)"
            )
        out[nodeid] = verdict
    repeats = data.get("repeats")
    if repeats is None:  # v1: rebuilt from the runs (run numbers from their ids: run_<n>)
        from ..repeats import run_number_of

        v1 = {n: e for n, e in runs.items() if isinstance(e, dict)}
        for e in v1.values():
            e.setdefault("run_number", run_number_of(SimpleNamespace(run_id=e.get("run_id") or "", source=None)))
        repeats = repeat_counts(v1)
    elif not isinstance(repeats, dict) or not all(
        isinstance(r, dict) and _count(r.get("n")) and _count(r.get("c")) and r["c"] <= r["n"] for r in repeats.values()
    ):
        raise pytest.UsageError(
            f'--are-baseline: {path}: \'repeats\' must map scenario ids to {{"n": runs, "c": passed}} with c <= n'
        )
    return out, {str(sid): Counts(n=r["n"], c=r["c"]) for sid, r in repeats.items()}


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def repeat_counts(records: dict[str, dict[str, Any]]) -> dict[str, Counts]:
    """``{scenario_id: {"n": runs, "c": passed}}`` of per-run records (errors count as not passing;
    records without a scenario id, such as load errors, are left out)."""
    from ..repeats import count_runs
    from .reporting import repeat_records

    return count_runs(repeat_records(records))


def save_baseline(path: str, records: dict[str, dict[str, Any]]) -> None:
    data = BaselineFile(
        schema=BASELINE_SCHEMA,
        runs={
            nodeid: BaselineEntry(
                verdict=rec["verdict"],
                scenario_id=rec.get("scenario_id"),
                run_id=rec.get("run_id"),
                failure_kind=rec.get("failure_kind"),
            )
            for nodeid, rec in sorted(records.items())
        },
        repeats=repeat_counts(records),
    )
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def compare(baseline: dict[str, str], records: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Per-run comparison (never an average): regressions, improvements, still failing, new, missing."""
    out: dict[str, list[str]] = {
        "regressions": [],
        "improvements": [],
        "still_failing": [],
        "unchanged": [],
        "new": [],
        "missing": [],
    }
    for nodeid, rec in sorted(records.items()):
        before = baseline.get(nodeid)
        now = rec["verdict"]
        if before is None:
            out["new"].append(nodeid)
        elif before == "pass" and now != "pass":
            out["regressions"].append(nodeid)
        elif before != "pass" and now == "pass":
            out["improvements"].append(nodeid)
        elif now != "pass":
            out["still_failing"].append(nodeid)
        else:
            out["unchanged"].append(nodeid)
    out["missing"] = sorted(set(baseline) - set(records))
    return out
