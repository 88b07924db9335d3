"""Shared helpers for the ARE conformance suite (real ARE traces with ARE's own verdicts)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# A copy of the shared ARE data (../shared/data/are) ships in tests/data/are so a fresh clone runs
# the whole conformance suite; ARE_SHARED_DATA points the tests at another copy (e.g. more traces).
SHARED = Path(os.environ.get("ARE_SHARED_DATA", HERE / "data" / "are"))
CASES = SHARED / "cases"
TRACES = SHARED / "traces"


def case_dirs() -> list[Path]:
    if not CASES.is_dir():
        return []
    return sorted(p for p in CASES.iterdir() if (p / "expected.json").is_file())


def config_for(case: Path, *, soft_equal: bool = False) -> dict[str, Any]:
    expected = json.loads((case / "expected.json").read_text())
    cfg: dict[str, Any] = {}
    conf = dict(expected.get("config") or {})
    jc = case / "judge_config.json"
    if jc.is_file():
        conf.update(json.loads(jc.read_text()))
    names = {
        "extra_smtu": "extra_send_message_to_user_allowed",
        "pre_tolerance": "pre_event_tolerance_seconds",
        "post_tolerance": "post_event_tolerance_seconds",
        "time_threshold": "check_time_threshold_seconds",
        "scripted": "event_id_to_checker_params",
    }
    for k, v in conf.items():
        if k in names:
            cfg[names[k]] = v
    if soft_equal:
        cfg["soft_fallback"] = "equal"
    return cfg
