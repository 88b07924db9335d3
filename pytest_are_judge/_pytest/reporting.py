"""Aggregating judged runs (on the xdist controller) into the summary, JSON report and junit."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from .._rate import format_rate as _pct
from .._text import visible

if TYPE_CHECKING:
    from ..repeats import Counts, RepeatsComparison, RepeatsReport

REPORT_SCHEMA_VERSION = 2

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


class SessionSummary(TypedDict):
    runs: int
    expected_to_pass: int
    """Runs not declared known-bad: the pass rate is over these."""
    passed: int
    failed: int
    """Runs expected to pass that failed."""
    errors: int
    expected_failures: int
    """Declared known-bad runs that failed as declared (correct outcomes)."""
    unexpected_passes: int
    """Declared known-bad runs that passed."""
    pass_rate: float | None
    min_pass_rate: float | None
    gate_passed: bool | None
    gate_applied: bool
    failure_categories: dict[str, int]
    failure_kinds: dict[str, int]
    outcomes: dict[str, int]
    time_not_checked: int
    """Runs whose agent log has no timestamps: their time windows were not checked."""


def summarize(
    records: dict[str, dict[str, Any]], outcomes: dict[str, str], min_pass_rate: float | None
) -> SessionSummary:
    """Counts of the session's runs.  The pass rate counts the runs expected to pass: a run
    declared known-bad that fails as declared is a correct outcome, not a failure."""
    categories: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for rec in records.values():
        known_bad = rec.get("expected") == "fail"
        verdict = rec["verdict"]
        if verdict == "error":
            counts["errors"] += 1
        elif known_bad:
            counts["expected_failures" if verdict == "fail" else "unexpected_passes"] += 1
        else:
            counts["passed" if verdict == "pass" else "failed"] += 1
        if not known_bad:
            counts["expected_to_pass"] += 1
        if any(str(n).startswith("time not checked") for n in rec.get("notes") or []):
            counts["time_not_checked"] += 1
        if verdict == "fail" and not known_bad:
            kinds[rec.get("failure_kind") or "unknown"] += 1
            for cat in rec.get("categories") or ["unknown"]:
                categories[cat] += 1
    n = counts["expected_to_pass"]
    rate = counts["passed"] / n if n else None
    applied = bool(records) and min_pass_rate is not None
    oc = Counter(outcomes.get(nodeid, "not_run") for nodeid in records)
    return SessionSummary(
        runs=len(records),
        expected_to_pass=n,
        passed=counts["passed"],
        failed=counts["failed"],
        errors=counts["errors"],
        expected_failures=counts["expected_failures"],
        unexpected_passes=counts["unexpected_passes"],
        pass_rate=rate,
        min_pass_rate=min_pass_rate,
        gate_passed=None if not applied else (rate is not None and rate + 1e-12 >= min_pass_rate),  # type: ignore[operator]
        gate_applied=applied,
        time_not_checked=counts["time_not_checked"],
        failure_categories=dict(sorted(categories.items())),
        failure_kinds=dict(sorted(kinds.items())),
        outcomes=dict(sorted(oc.items())),
    )


def write_report(
    path: str,
    *,
    records: dict[str, dict[str, Any]],
    outcomes: dict[str, str],
    summary: dict[str, Any],
    baseline: dict[str, Any] | None,
    llm_usage: dict[str, Any] | None,
    settings_header: str,
    repeats: RepeatsReport | None = None,
) -> None:
    from .. import __version__

    status = baseline_status(baseline)
    runs = []
    for nodeid, rec in sorted(records.items()):
        runs.append({**rec, "outcome": outcomes.get(nodeid, "not_run"), "baseline": status.get(nodeid)})
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
    summary: SessionSummary,
    baseline: dict[str, Any] | None,
    llm_usage: dict[str, Any] | None,
    messages: list[str],
    repeats: RepeatsReport | None = None,
) -> list[str]:
    """The terminal summary: counts, expected failures on their own line, failure kinds,
    baseline comparison, repeats, LLM usage, then the gate messages."""
    s = summary
    lines = [
        f"runs judged: {s['runs']}  passed: {s['passed']}  failed: {s['failed']}  errors: {s['errors']}  "
        f"pass rate: {_pct(s['pass_rate'])} (of {s['expected_to_pass']} run(s) expected to pass)"
    ]
    if s["expected_failures"]:
        lines.append(f"expected failures: {s['expected_failures']} (declared known-bad, failed as declared)")
    if s["unexpected_passes"]:
        lines.append(f"known-bad runs that passed: {s['unexpected_passes']} (declared expect: fail, judged a pass)")
    if s["time_not_checked"]:
        lines.append(
            f"time not checked: {s['time_not_checked']} run(s) (their agent logs have no timestamps; see each run's notes)"
        )
    shown = [f"{k}: {v}" for k, v in s["outcomes"].items() if v]
    if shown:
        lines.append("pytest outcomes: " + "  ".join(shown))
    if s["failure_categories"]:
        lines.append("failures by kind:")
        for cat, count in sorted(s["failure_categories"].items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {CATEGORY_LABELS.get(cat, cat)}: {count}")
    if baseline is not None:
        lines.append(
            f"baseline {baseline['path']}: {len(baseline['regressions'])} regressed, {len(baseline['improvements'])} improved, "
            f"{len(baseline['still_failing'])} still failing, {len(baseline['new'])} new, {len(baseline['missing'])} missing"
        )
        for label, key in (
            ("regressed", "regressions"),
            ("improved", "improvements"),
            ("still failing", "still_failing"),
            ("new", "new"),
            ("missing", "missing"),
        ):
            for nodeid in baseline[key]:
                lines.append(f"  {label}: {visible(nodeid)}")
    if repeats is not None:
        from ..repeats import repeat_lines

        lines += repeat_lines(repeats)
    if llm_usage:
        lines.append(
            "LLM usage: "
            + "  ".join(f"{k}: {llm_usage[k]:.4f}" if k == "cost_usd" else f"{k}: {llm_usage[k]}" for k in llm_usage)
        )
    return lines + messages


# ------------------------------------------------------------------ repeated runs (pass@k, pass^k)


def repeat_records(records: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The session's records that are repeats of a scenario (:func:`~pytest_are_judge.repeats.is_repeat`),
    in node-id order (errors do not pass)."""
    from ..repeats import is_repeat

    return [rec for _, rec in sorted(records.items()) if is_repeat(rec)]


def repeats_summary(
    records: dict[str, dict[str, Any]], k: int | None, min_pass_hat_k: float | None
) -> RepeatsReport | None:
    """:func:`~pytest_are_judge.repeats.repeats_report` of the session's runs (as the offline CLI)."""
    from ..repeats import repeats_report

    return repeats_report(repeat_records(records), k=k, min_pass_hat_k=min_pass_hat_k)


def compare_repeat_baseline(
    baseline_counts: dict[str, Counts], records: dict[str, dict[str, Any]], k: int
) -> RepeatsComparison:
    """Per-scenario comparison with the baseline's repeat counts at the same ``k``."""
    from ..repeats import compare_repeats, records_from_counts

    return compare_repeats(records_from_counts(baseline_counts), repeat_records(records), k)


def _prop_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def junit_properties(
    sm: SessionSummary,
    baseline: dict[str, Any] | None,
    repeats: RepeatsReport | None,
    llm_usage: dict[str, Any] | None,
) -> list[tuple[str, Any]]:
    """junit ``<testsuite>`` properties: counts, the gates, the baseline comparison, repeats, LLM usage."""
    props: list[tuple[str, Any]] = [
        ("are_runs", sm["runs"]),
        ("are_passed", sm["passed"]),
        ("are_failed", sm["failed"]),
        ("are_expected_failures", sm["expected_failures"]),
        ("are_errors", sm["errors"]),
        ("are_pass_rate", "n/a" if sm["pass_rate"] is None else f"{sm['pass_rate']:.4f}"),
    ]
    for cat, count in sm["failure_categories"].items():
        props.append((f"are_failures_{cat}", count))
    if sm["min_pass_rate"] is not None:
        props.append(("are_min_pass_rate", sm["min_pass_rate"]))
        props.append(("are_gate_passed", "n/a" if sm["gate_passed"] is None else sm["gate_passed"]))
    if baseline is not None:
        props.append(("are_regressions", len(baseline["regressions"])))
        props.append(("are_improvements", len(baseline["improvements"])))
    if repeats is not None:
        props += repeat_properties(repeats)
    for k, v in (llm_usage or {}).items():
        props.append((f"are_llm_{k}", v))
    return props


def repeat_properties(repeats: RepeatsReport) -> list[tuple[str, Any]]:
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
    repeats: RepeatsReport | None,
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
