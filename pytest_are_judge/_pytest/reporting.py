"""Aggregating judged runs (on the xdist controller) into the summary, JSON report and junit."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPORT_SCHEMA_VERSION = 1

CATEGORY_LABELS = {
    "counts": "counts (tool-call counts differ)",
    "causality": "causality (dependency order)",
    "time": "time (outside the time window)",
    "arguments": "argument mismatch",
    "missing_call": "missing call (no candidate)",
    "soft": "LLM-judged argument rejected",
}


def outcome_of(report: Any) -> str | None:
    """pytest outcome of a run from one phase's report (None: nothing decided in this phase)."""
    if report.when == "setup":
        if report.failed:
            return "error"
        if report.skipped:
            return "xfailed" if hasattr(report, "wasxfail") else "skipped"
        return None
    if report.when == "call":
        if report.passed:
            return "xpassed" if hasattr(report, "wasxfail") else "passed"
        if report.skipped:
            return "xfailed" if hasattr(report, "wasxfail") else "skipped"
        longrepr = report.longrepr if isinstance(report.longrepr, str) else ""
        return "xpassed_strict" if longrepr.startswith("[XPASS(strict)]") else "failed"
    if report.when == "teardown" and report.failed:
        return "error"
    return None


def summarize(records: dict[str, dict[str, Any]], outcomes: dict[str, str], min_pass_rate: float | None) -> dict[str, Any]:
    verdicts = Counter(r["verdict"] for r in records.values())
    categories: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for rec in records.values():
        if rec["verdict"] == "fail":
            kinds[rec.get("failure_kind") or "unknown"] += 1
            for cat in rec.get("categories") or ["unknown"]:
                categories[cat] += 1
    n = len(records)
    rate = verdicts["pass"] / n if n else None
    oc = Counter(outcomes.get(nodeid, "not_run") for nodeid in records)
    return {
        "runs": n,
        "passed": verdicts["pass"],
        "failed": verdicts["fail"],
        "errors": verdicts["error"],
        "pass_rate": rate,
        "min_pass_rate": min_pass_rate,
        "gate_passed": None if min_pass_rate is None else (rate is not None and rate + 1e-12 >= min_pass_rate),
        "failure_categories": dict(sorted(categories.items())),
        "failure_kinds": dict(sorted(kinds.items())),
        "outcomes": dict(sorted(oc.items())),
    }


def write_report(
    path: str,
    *,
    records: dict[str, dict[str, Any]],
    outcomes: dict[str, str],
    summary: dict[str, Any],
    baseline: dict[str, Any] | None,
    baseline_verdicts: dict[str, str] | None,
    llm_usage: dict[str, Any] | None,
    settings_header: str,
) -> None:
    from .. import __version__

    runs = []
    for nodeid, rec in sorted(records.items()):
        runs.append({**rec, "outcome": outcomes.get(nodeid, "not_run"), "baseline": (baseline_verdicts or {}).get(nodeid)})
    data = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "tool": "pytest-are-judge",
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "settings": settings_header,
        "summary": summary,
        "baseline": baseline,
        "llm_usage": llm_usage,
        "runs": runs,
    }
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def summary_lines(summary: dict[str, Any], baseline: dict[str, Any] | None, llm_usage: dict[str, Any] | None, gate_message: str | None) -> list[str]:
    s = summary
    lines = [
        f"runs judged: {s['runs']}  passed: {s['passed']}  failed: {s['failed']}  errors: {s['errors']}  pass rate: {_pct(s['pass_rate'])}",
    ]
    oc = s["outcomes"]
    shown = [f"{k}: {v}" for k, v in oc.items() if v]
    if shown:
        lines.append("pytest outcomes: " + "  ".join(shown))
    if s["failure_categories"]:
        lines.append("failures by kind:")
        for cat, count in sorted(s["failure_categories"].items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {CATEGORY_LABELS.get(cat, cat)}: {count}")
    if baseline is not None:
        lines.append(
            f"baseline {baseline['path']}: {len(baseline['regressions'])} regression(s), {len(baseline['improvements'])} improvement(s), "
            f"{len(baseline['still_failing'])} still failing, {len(baseline['new'])} new, {len(baseline['missing'])} missing"
        )
        for label, key in (("regression", "regressions"), ("improvement", "improvements"), ("new", "new")):
            for nodeid in baseline[key]:
                lines.append(f"  {label}: {nodeid}")
    if llm_usage:
        lines.append(
            "LLM usage: " + "  ".join(f"{k}: {llm_usage[k]:.4f}" if k == "cost_usd" else f"{k}: {llm_usage[k]}" for k in llm_usage)
        )
    if gate_message:
        lines.append(gate_message)
    return lines


def merge_usage(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    items = [i for i in items if i]
    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        for k, v in item.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
    return out


def local_usage() -> dict[str, Any] | None:
    """``pytest_are_judge.soft.usage_totals()`` if the soft module was used in this process."""
    import sys

    soft = sys.modules.get("pytest_are_judge.soft")
    if soft is None:
        return None
    fn = getattr(soft, "usage_totals", None)
    if fn is None:
        usage_mod = sys.modules.get("pytest_are_judge.soft.usage")
        fn = getattr(usage_mod, "usage_totals", None)
    if fn is None:
        return None
    try:
        totals = fn()
    except Exception:  # noqa: BLE001 - usage is informative only
        return None
    return dict(totals) if totals else None
