"""Aggregating judged runs (on the xdist controller) into the summary, JSON report and junit."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from .._rate import format_rate as _pct

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


def summarize(
    records: dict[str, dict[str, Any]], outcomes: dict[str, str], min_pass_rate: float | None
) -> dict[str, Any]:
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
    repeats: dict[str, Any] | None = None,
) -> None:
    from .. import __version__

    runs = []
    for nodeid, rec in sorted(records.items()):
        runs.append(
            {**rec, "outcome": outcomes.get(nodeid, "not_run"), "baseline": (baseline_verdicts or {}).get(nodeid)}
        )
    data = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "tool": "pytest-are-judge",
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "settings": settings_header,
        "summary": summary,
        "baseline": baseline,
        "llm_usage": llm_usage,
        "repeats": repeats,
        "runs": runs,
    }
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")


def summary_lines(
    summary: dict[str, Any],
    baseline: dict[str, Any] | None,
    llm_usage: dict[str, Any] | None,
    gate_message: str | None,
    repeats: dict[str, Any] | None = None,
    repeats_messages: list[str] | None = None,
) -> list[str]:
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
    if repeats is not None:
        from ..repeats import repeat_lines

        lines += repeat_lines(repeats)
    if llm_usage:
        lines.append(
            "LLM usage: "
            + "  ".join(f"{k}: {llm_usage[k]:.4f}" if k == "cost_usd" else f"{k}: {llm_usage[k]}" for k in llm_usage)
        )
    if gate_message:
        lines.append(gate_message)
    lines += repeats_messages or []
    return lines


# ------------------------------------------------------------------ repeated runs (pass@k, pass^k)


def repeat_records(records: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-run records as :mod:`pytest_are_judge.repeats` takes them (errors do not pass; runs
    without a scenario id, i.e. files that could not be loaded, are left out)."""
    return [
        {"scenario_id": rec["scenario_id"], "success": rec["verdict"] == "pass", "run_number": rec.get("run_number")}
        for _, rec in sorted(records.items())
        if rec.get("scenario_id")
    ]


def repeats_summary(
    records: dict[str, dict[str, Any]], k: int | None, min_pass_hat_k: float | None
) -> dict[str, Any] | None:
    """:func:`~pytest_are_judge.repeats.repeats_report` of the session's runs (as the offline CLI)."""
    from ..repeats import repeats_report

    return repeats_report(repeat_records(records), k=k, min_pass_hat_k=min_pass_hat_k)


def compare_repeat_baseline(
    baseline_counts: dict[str, dict[str, int]], records: dict[str, dict[str, Any]], k: int
) -> dict[str, Any]:
    """Per-scenario comparison with the baseline's repeat counts at the same ``k``."""
    from ..repeats import compare_repeats, records_from_counts

    return compare_repeats(records_from_counts(baseline_counts), repeat_records(records), k)


def _prop_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def repeat_properties(repeats: dict[str, Any]) -> list[tuple[str, Any]]:
    """junit suite properties: ``are_k``, overall and per-scenario pass@k / pass^k, the gate and
    the baseline comparison."""
    props: list[tuple[str, Any]] = [("are_k", "n/a" if repeats["k"] is None else repeats["k"])]
    o = repeats["overall"]
    props += [("are_pass_at_k", _num(o["pass_at_k"])), ("are_pass_hat_k", _num(o["pass_hat_k"]))]
    for sid, row in repeats["scenarios"].items():
        if row["pass_hat_k"] is not None:
            props += [
                (f"are_pass_at_k_{_prop_name(sid)}", _num(row["pass_at_k"])),
                (f"are_pass_hat_k_{_prop_name(sid)}", _num(row["pass_hat_k"])),
            ]
    if repeats.get("min_pass_hat_k") is not None:
        props += [
            ("are_min_pass_hat_k", repeats["min_pass_hat_k"]),
            ("are_pass_hat_k_gate_passed", repeats["gate_passed"]),
        ]
    if repeats.get("baseline") is not None:
        props += [
            ("are_repeat_regressions", len(repeats["baseline"]["regressed"])),
            ("are_repeat_improvements", len(repeats["baseline"]["improved"])),
        ]
    return props


# ------------------------------------------------------------------ HTML / Markdown


def visual_report(
    records: dict[str, dict[str, Any]],
    outcomes: dict[str, str],
    baseline: dict[str, Any] | None,
    summary: dict[str, Any],
    repeats: dict[str, Any] | None,
    settings_header: str,
) -> dict[str, Any]:
    """The report the HTML and Markdown renderers take: the session's records (sorted by node
    id) with their pytest outcome and baseline status, and the repeats table."""
    from ..report.record import build_report

    status = baseline_status(baseline)
    runs = []
    for nodeid, rec in sorted(records.items()):
        run = dict(rec)
        run["outcome"] = outcomes.get(nodeid, "not_run")
        if nodeid in status:
            run["baseline"] = status[nodeid]
        runs.append(run)
    return build_report(
        runs,
        title="pytest-are-judge report",
        repeats=repeats,
        settings=settings_header,
        extra={"pass rate": _pct(summary["pass_rate"])},
    )


def baseline_status(baseline: dict[str, Any] | None) -> dict[str, str]:
    """Per node id: regressed / improved / still failing / new (from a baseline comparison)."""
    out: dict[str, str] = {}
    if baseline is None:
        return out
    for key, label in (
        ("regressions", "regressed"),
        ("improvements", "improved"),
        ("still_failing", "still failing"),
        ("new", "new"),
        ("unchanged", "unchanged"),
    ):
        for nodeid in baseline.get(key) or []:
            out[nodeid] = label
    return out


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
    except Exception:
        return None
    return dict(totals) if totals else None


def reset_local_usage() -> None:
    """Zero this process's LLM usage counters (if the soft module was loaded at all)."""
    import sys

    usage_mod = sys.modules.get("pytest_are_judge.soft.usage")
    if usage_mod is not None:
        usage_mod.reset_usage()
