"""The per-run record every report is drawn from, made from a judgment and nothing else.

A :class:`RunRecord` is plain JSON (it travels from xdist workers to the controller, and is
written to the JSON report as it is); every value in it is bounded, whatever an agent wrote.
The terminal summary, the JSON report, the HTML page and the Markdown summary all read records,
so they agree by construction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypedDict

from .._text import bounded, shorten
from ..judgment.result import Judgment

__all__ = ["RunRecord", "Summary", "build_report", "display_status", "run_record", "summarize"]

Verdict = Literal["pass", "fail", "error"]
_MAX_TEXT = 20_000


class RunRecord(TypedDict, total=False):
    nodeid: str | None
    """pytest node id (None outside pytest)."""
    scenario_id: str
    run_id: str
    name: str
    path: str | None
    """The run's file, relative to the rootdir in pytest."""
    run_number: int | None
    expected: str | None
    """``"fail"``: declared known-bad."""
    verdict: Verdict
    failure_kind: str | None
    categories: list[str]
    failure: str | None
    """ARE's rationale text (bounded)."""
    failure_text: str
    """The rich, rendered failure report ("" for a pass)."""
    failure_detail: Any
    matches: dict[str, str]
    nb_turns: int
    turns_judged: int
    matching: str
    notes: list[str]
    extras: Any
    trace: Any
    """:class:`~pytest_are_judge.judgment.trace.Trace` as a dict (None: nothing was judged)."""
    judge_seconds: float
    outcome: str
    """The pytest outcome (passed, failed, xfailed, xpassed, error...), added by the plugin."""
    baseline: str | None
    """Per-run comparison with a baseline: regressed / improved / still failing / new / unchanged."""


class Summary(TypedDict):
    total: int
    passed: int
    failed: int
    error: int
    expected_failures: int
    """Failed runs that were declared known-bad (correct outcomes)."""
    unexpected_passes: int
    """Runs declared known-bad that passed."""
    by_failure_kind: dict[str, int]


def run_record(
    judgment: Judgment, *, nodeid: str | None = None, path: str | None = None, judge_seconds: float = 0.0
) -> RunRecord:
    """The record of one judged run (or of a file that could not be judged: an input error)."""
    d = judgment.to_dict()
    verdict: Verdict = "error" if judgment.is_error else ("pass" if judgment.success else "fail")
    return RunRecord(
        nodeid=nodeid,
        scenario_id=shorten(str(judgment.scenario_id or ""), 500),
        run_id=shorten(str(judgment.run_id or ""), 500),
        name=shorten(f"{judgment.scenario_id}:{judgment.run_id}", 1000),
        path=path if path is not None else judgment.source,
        run_number=judgment.run_number,
        expected=judgment.expected,
        verdict=verdict,
        failure_kind=judgment.failure_kind,
        categories=list(d["categories"]),
        failure=None if d["failure"] is None else shorten(d["failure"], _MAX_TEXT),
        failure_text="" if judgment.success else shorten(judgment.render(), _MAX_TEXT),
        failure_detail=bounded(d["failure_detail"]),
        matches=dict(d["matches"]),
        nb_turns=judgment.nb_turns,
        turns_judged=judgment.turns_judged,
        matching=judgment.matching,
        notes=[shorten(n, 2000) for n in judgment.notes],
        extras=bounded(d.get("extras") or {}),
        trace=d["trace"],  # bounded where it is recorded (judge/trace.py)
        judge_seconds=round(judge_seconds, 6),
    )


def display_status(rec: Mapping[str, Any]) -> str:
    """passed, failed, error, xfailed (failed as declared), xpassed (declared known-bad, passed)."""
    verdict = rec.get("verdict")
    if verdict == "error":
        return "error"
    if rec.get("expected") == "fail":
        return "xfailed" if verdict == "fail" else "xpassed"
    return "passed" if verdict == "pass" else "failed"


def summarize(records: Iterable[Mapping[str, Any]]) -> Summary:
    """Counts per display status and per failure kind."""
    records = list(records)
    by_status: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    for r in records:
        st = display_status(r)
        by_status[st] = by_status.get(st, 0) + 1
        if r.get("failure_kind"):
            by_kind[r["failure_kind"]] = by_kind.get(r["failure_kind"], 0) + 1
    return Summary(
        total=len(records),
        passed=by_status.get("passed", 0),
        failed=by_status.get("failed", 0),
        error=by_status.get("error", 0),
        expected_failures=by_status.get("xfailed", 0),
        unexpected_passes=by_status.get("xpassed", 0),
        by_failure_kind=dict(sorted(by_kind.items())),
    )


def build_report(
    records: Iterable[Mapping[str, Any]],
    *,
    title: str | None = None,
    repeats: Mapping[str, Any] | None = None,
    settings: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``{"runs", "summary"[, "title", "repeats", "settings"]}`` as the HTML and Markdown renderers take it."""
    runs = [dict(r) for r in records]
    report: dict[str, Any] = {"runs": runs, "summary": {**summarize(runs), **(extra or {})}}
    if title:
        report["title"] = title
    if repeats:
        report["repeats"] = dict(repeats)
    if settings:
        report["settings"] = settings
    return report
