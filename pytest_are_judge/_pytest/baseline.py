"""Baselines: per-run verdicts saved by one session and compared by a later one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

BASELINE_SCHEMA = "pytest-are-judge/baseline-v1"


def load_baseline(path: str) -> dict[str, str]:
    """``{nodeid: "pass"|"fail"|"error"}`` from a baseline file (a usage error if unreadable)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise pytest.UsageError(f"--are-baseline: cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise pytest.UsageError(f"--are-baseline: {path} is not valid JSON (line {exc.lineno}): {exc.msg}") from None
    runs = data.get("runs") if isinstance(data, dict) else None
    if data.get("schema") != BASELINE_SCHEMA or not isinstance(runs, dict):
        raise pytest.UsageError(f"--are-baseline: {path} is not a pytest-are-judge baseline (schema {BASELINE_SCHEMA})")
    out: dict[str, str] = {}
    for nodeid, entry in runs.items():
        verdict = entry.get("verdict") if isinstance(entry, dict) else entry
        if verdict not in ("pass", "fail", "error"):
            raise pytest.UsageError(f"--are-baseline: {path}: run {nodeid!r} has verdict {verdict!r} (expected pass, fail or error)")
        out[nodeid] = verdict
    return out


def save_baseline(path: str, records: dict[str, dict[str, Any]]) -> None:
    data = {
        "schema": BASELINE_SCHEMA,
        "runs": {
            nodeid: {"verdict": rec["verdict"], "scenario_id": rec.get("scenario_id"), "run_id": rec.get("run_id"), "failure_kind": rec.get("failure_kind")}
            for nodeid, rec in sorted(records.items())
        },
    }
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def compare(baseline: dict[str, str], records: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Per-run comparison (never an average): regressions, improvements, still failing, new, missing."""
    out: dict[str, list[str]] = {"regressions": [], "improvements": [], "still_failing": [], "new": [], "missing": []}
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
    out["missing"] = sorted(set(baseline) - set(records))
    return out
