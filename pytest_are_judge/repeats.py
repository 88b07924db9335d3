"""Repeated runs of one scenario: pass@k, pass^k, per scenario and overall, and baselines.

* ``pass@k`` — the chance that at least one of k runs drawn (without replacement) from the n
  recorded runs passes; the unbiased estimator ``1 - C(n-c, k) / C(n, k)`` for c passing runs.
* ``pass^k`` — the chance that all k drawn runs pass: ``C(c, k) / C(n, k)``; a measure of
  reliability that falls as k grows unless every run passes.

Records are ``{"scenario_id": ..., "success": bool}`` mappings (``Judgment`` objects, or dicts
from ``Judgment.to_dict()``, work too).  Errors (``success`` None or an error failure kind)
count as not passing.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from math import comb
from typing import Any, NotRequired, TypedDict

__all__ = [
    "Counts",
    "OverallScore",
    "RepeatsComparison",
    "RepeatsReport",
    "RepeatsSummary",
    "ScenarioComparison",
    "ScenarioScore",
    "compare_repeats",
    "count_runs",
    "default_k",
    "group_runs",
    "has_repeats",
    "is_repeat",
    "pass_at_k",
    "pass_hat_k",
    "records_from_counts",
    "repeat_lines",
    "repeats_report",
    "run_number_of",
    "summarize_repeats",
]


class Counts(TypedDict):
    """A scenario's repeats as a baseline stores them."""

    n: int
    """runs"""
    c: int
    """runs that passed"""


class ScenarioScore(TypedDict):
    """One scenario's row: pass@k / pass^k are None when it has fewer than k runs (``note`` says so)."""

    n: int
    c: int
    errors: int
    pass_rate: float | None
    pass_at_k: float | None
    pass_hat_k: float | None
    note: NotRequired[str]


class OverallScore(TypedDict):
    """Means over the scored scenarios (``scored`` of ``scenarios``)."""

    scenarios: int
    scored: int
    runs: int
    passes: int
    pass_rate: float | None
    pass_at_k: float | None
    pass_hat_k: float | None


class RepeatsSummary(TypedDict):
    k: int | None
    scenarios: dict[str, ScenarioScore]
    overall: OverallScore


class ScenarioComparison(TypedDict):
    baseline: ScenarioScore | None
    current: ScenarioScore | None
    status: str
    """regressed | improved | unchanged | new | removed | unscored"""
    delta_pass_at_k: NotRequired[float | None]
    delta_pass_hat_k: NotRequired[float | None]


class OverallComparison(TypedDict):
    baseline: OverallScore
    current: OverallScore
    delta_pass_at_k: float | None
    delta_pass_hat_k: float | None


class RepeatsComparison(TypedDict):
    k: int
    tolerance: float
    scenarios: dict[str, ScenarioComparison]
    overall: OverallComparison
    regressed: list[str]
    improved: list[str]
    path: NotRequired[str | None]
    """the baseline file, when compared with one"""


class RepeatsReport(RepeatsSummary):
    """The repeated-runs section of a report: the summary, the gate, and the baseline comparison."""

    min_pass_hat_k: float | None
    gate_passed: bool | None
    baseline: NotRequired[RepeatsComparison]


def _check(n: int, c: int, k: int) -> None:
    for name, v in (("n", n), ("c", c), ("k", k)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{name} must be an int, got {v!r}")
    if n < 0 or c < 0 or not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k > n:
        raise ValueError(f"k={k} is larger than the number of runs n={n}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n runs of which c passed (``1 - C(n-c, k) / C(n, k)``)."""
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k from n runs of which c passed (``C(c, k) / C(n, k)``)."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


# ------------------------------------------------------------------ records


def _field(rec: Any, name: str, default: Any = None) -> Any:
    if isinstance(rec, Mapping):
        return rec.get(name, default)
    return getattr(rec, name, default)


_ERROR_KINDS = {"input_error", "judge_unavailable", "inconclusive", "code_judge_error"}


def _passed(rec: Any) -> bool:
    verdict = _field(rec, "verdict")
    if verdict is not None:  # a run record
        return bool(verdict == "pass")
    if _field(rec, "success") is not True:
        return False
    return _field(rec, "failure_kind") not in _ERROR_KINDS


def _counts(records: Iterable[Any]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for rec in records:
        sid = _field(rec, "scenario_id")
        if not sid:
            raise ValueError(f"record without scenario_id: {rec!r}")
        d = out.setdefault(str(sid), {"n": 0, "c": 0, "errors": 0})
        d["n"] += 1
        d["c"] += int(_passed(rec))
        if (
            _field(rec, "verdict") == "error"
            or _field(rec, "success") is None
            or _field(rec, "failure_kind") in _ERROR_KINDS
        ):
            d["errors"] += 1
    return out


def _scenario_row(n: int, c: int, errors: int, k: int) -> ScenarioScore:
    row = ScenarioScore(n=n, c=c, errors=errors, pass_rate=c / n if n else None, pass_at_k=None, pass_hat_k=None)
    if n >= k:
        row["pass_at_k"] = pass_at_k(n, c, k)
        row["pass_hat_k"] = pass_hat_k(n, c, k)
    else:
        row["note"] = f"only {n} run(s), fewer than k={k}"
    return row


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def count_runs(records: Iterable[Any]) -> dict[str, Counts]:
    """``{scenario_id: {"n": runs, "c": passed}}``, sorted by scenario id (what baselines store)."""
    return {sid: Counts(n=d["n"], c=d["c"]) for sid, d in sorted(_counts(records).items())}


def records_from_counts(counts: Mapping[str, Counts]) -> list[dict[str, Any]]:
    """Per-run records rebuilt from :func:`count_runs` counts (c passing, n - c not)."""
    out: list[dict[str, Any]] = []
    for sid, row in counts.items():
        out += [{"scenario_id": sid, "success": True}] * row["c"]
        out += [{"scenario_id": sid, "success": False}] * (row["n"] - row["c"])
    return out


def has_repeats(records: Iterable[Any]) -> bool:
    """Does any scenario have two runs or more?"""
    return any(d["n"] >= 2 for d in _counts(records).values())


def default_k(records: Iterable[Any]) -> int | None:
    """The k used when none is given: the smallest run count among scenarios with two runs or
    more, so that every repeated scenario is scored at the same k; ``None`` without repeats."""
    repeated = [d["n"] for d in _counts(records).values() if d["n"] >= 2]
    return min(repeated) if repeated else None


def summarize_repeats(records: Iterable[Any], k: int) -> RepeatsSummary:
    """Per-scenario and overall pass@k / pass^k.

    Returns ``{"k", "scenarios": {id: {n, c, errors, pass_rate, pass_at_k, pass_hat_k[, note]}},
    "overall": {scenarios, scored, runs, passes, pass_rate, pass_at_k, pass_hat_k}}``.  A scenario
    with fewer than k runs gets ``None`` scores and is left out of the overall means
    (``scored`` counts the scenarios that are in them).
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    counts = _counts(records)
    scenarios = {sid: _scenario_row(d["n"], d["c"], d["errors"], k) for sid, d in sorted(counts.items())}
    scored = [r for r in scenarios.values() if r["pass_at_k"] is not None]
    runs = sum(r["n"] for r in scenarios.values())
    passes = sum(r["c"] for r in scenarios.values())
    overall = OverallScore(
        scenarios=len(scenarios),
        scored=len(scored),
        runs=runs,
        passes=passes,
        pass_rate=passes / runs if runs else None,
        pass_at_k=_mean([r["pass_at_k"] for r in scored if r["pass_at_k"] is not None]),
        pass_hat_k=_mean([r["pass_hat_k"] for r in scored if r["pass_hat_k"] is not None]),
    )
    return RepeatsSummary(k=k, scenarios=scenarios, overall=overall)


def is_repeat(rec: Any) -> bool:
    """A run that counts as a repeat of its scenario: it has a run number (``run_<n>`` in its
    name, ``run_number`` in its file) and was not declared known-bad.  Hand-made variants of a
    scenario (``good``, ``wrong_recipient``, anything with ``expect: fail``) are not repeats."""
    return (
        bool(_field(rec, "scenario_id")) and _field(rec, "run_number") is not None and _field(rec, "expected") != "fail"
    )


def repeats_report(
    records: Iterable[Any], *, k: int | None = None, min_pass_hat_k: float | None = None
) -> RepeatsReport | None:
    """The repeated-runs section of a report (CLI and plugin): :func:`summarize_repeats` of the
    runs that are repeats (:func:`is_repeat`) at ``k`` (default :func:`default_k`), plus
    ``min_pass_hat_k`` and ``gate_passed`` (None without a gate).

    Computed when asked for (``k`` or ``min_pass_hat_k``) or when some scenario has two repeats
    or more; None otherwise.  With a gate but no repeated scenario, ``k`` is None and the gate
    fails: a pass^k gate that cannot be evaluated never passes.
    """
    recs = [r for r in records if is_repeat(r)]
    if k is None and min_pass_hat_k is None and not has_repeats(recs):
        return None
    k = k or default_k(recs)
    if k is None:
        if min_pass_hat_k is None:
            return None
        overall = OverallScore(
            scenarios=0,
            scored=0,
            runs=len(recs),
            passes=sum(_passed(r) for r in recs),
            pass_rate=None,
            pass_at_k=None,
            pass_hat_k=None,
        )
        return RepeatsReport(k=None, scenarios={}, overall=overall, min_pass_hat_k=min_pass_hat_k, gate_passed=False)
    summary = summarize_repeats(recs, k)
    value = summary["overall"]["pass_hat_k"]
    # a float tolerance: a mean of exact fractions must not miss a threshold it equals
    gate = None if min_pass_hat_k is None else (value is not None and value + 1e-12 >= min_pass_hat_k)
    return RepeatsReport(
        k=summary["k"],
        scenarios=summary["scenarios"],
        overall=summary["overall"],
        min_pass_hat_k=min_pass_hat_k,
        gate_passed=gate,
    )


def _as_summary(data: Any, k: int) -> RepeatsSummary:
    if isinstance(data, Mapping) and "scenarios" in data and "overall" in data:
        if data.get("k") != k:  # recompute from counts so both sides use the same k
            return summarize_repeats(records_from_counts(data["scenarios"]), k)
        return RepeatsSummary(k=data["k"], scenarios=data["scenarios"], overall=data["overall"])
    return summarize_repeats(data, k)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def compare_repeats(baseline: Any, current: Any, k: int, *, tolerance: float = 0.0) -> RepeatsComparison:
    """Compare two sets of repeated runs at the same k.

    ``baseline`` and ``current`` are record lists or :func:`summarize_repeats` results.  Per
    scenario: both rows, ``delta_pass_at_k``, ``delta_pass_hat_k`` (current − baseline) and a
    ``status``: ``regressed`` (pass^k fell by more than ``tolerance``), ``improved`` (rose by more),
    ``unchanged``, ``new`` / ``removed`` (only on one side) or ``unscored`` (fewer than k runs).
    """
    base = _as_summary(baseline, k)
    cur = _as_summary(current, k)
    rows: dict[str, ScenarioComparison] = {}
    for sid in sorted(set(base["scenarios"]) | set(cur["scenarios"])):
        b = base["scenarios"].get(sid)
        c = cur["scenarios"].get(sid)
        row = ScenarioComparison(baseline=b, current=c, status="unscored")
        if b is None:
            row["status"] = "new"
        elif c is None:
            row["status"] = "removed"
        else:
            d_at = _delta(b["pass_at_k"], c["pass_at_k"])
            d_hat = _delta(b["pass_hat_k"], c["pass_hat_k"])
            row["delta_pass_at_k"], row["delta_pass_hat_k"] = d_at, d_hat
            if d_hat is None:
                row["status"] = "unscored"
            elif d_hat < -tolerance:
                row["status"] = "regressed"
            elif d_hat > tolerance:
                row["status"] = "improved"
            else:
                row["status"] = "unchanged"
        rows[sid] = row
    ob, oc = base["overall"], cur["overall"]
    return RepeatsComparison(
        k=k,
        tolerance=tolerance,
        scenarios=rows,
        overall=OverallComparison(
            baseline=ob,
            current=oc,
            delta_pass_at_k=_delta(ob["pass_at_k"], oc["pass_at_k"]),
            delta_pass_hat_k=_delta(ob["pass_hat_k"], oc["pass_hat_k"]),
        ),
        regressed=[s for s, r in rows.items() if r["status"] == "regressed"],
        improved=[s for s, r in rows.items() if r["status"] == "improved"],
    )


# ------------------------------------------------------------------ grouping runs

_RUN_NUMBER = re.compile(r"(?:^|[^a-z])run[_\-. ]?(\d+)", re.I)


def run_number_of(run: Any) -> int | None:
    """A run's number: ``run.run_number``, ``metadata["run"]["run_number"]`` /
    ``metadata["run_number"]``, else ``run_<n>`` in its id or file/folder name."""
    n = getattr(run, "run_number", None)
    if isinstance(n, int) and not isinstance(n, bool):
        return n
    meta = getattr(run, "metadata", None) or {}
    for v in (
        (meta.get("run") or {}).get("run_number") if isinstance(meta.get("run"), Mapping) else None,
        meta.get("run_number"),
    ):
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return _number_in_names(str(getattr(run, "run_id", "") or ""), getattr(run, "source", None) or None)


@functools.lru_cache(maxsize=4096)
def _number_in_names(run_id: str, source: str | None) -> int | None:
    """``run_<n>`` in the run id, else in the file's stem, else in its folder's name."""
    if "run" not in run_id.lower() and (not source or "run" not in source.lower()):
        return None  # the common case, without path handling or a regex scan
    names = [run_id]
    if source:
        head, name = os.path.split(os.path.normpath(source))
        names += [os.path.splitext(name)[0], os.path.basename(head)]
    for name in names:
        m = _RUN_NUMBER.search(name)
        if m:
            return int(m.group(1))
    return None


def group_runs(runs: Iterable[Any]) -> dict[str, list[Any]]:
    """Runs grouped by scenario id, each group ordered by run number (unnumbered runs last, in
    input order)."""
    groups: dict[str, list[tuple[int, int, Any]]] = {}
    for i, run in enumerate(runs):
        sid = run.scenario.scenario_id
        n = run_number_of(run)
        groups.setdefault(sid, []).append((0 if n is not None else 1, n if n is not None else i, run))
    return {sid: [r for *_, r in sorted(items, key=lambda t: (t[0], t[1]))] for sid, items in groups.items()}


# ------------------------------------------------------------------ text


def repeat_lines(repeats: RepeatsReport, *, indent: str = "  ") -> list[str]:
    """The repeated-runs section of a terminal summary (plugin and CLI): pass@k / pass^k overall,
    a table of the repeated scenarios, the gate verdict and the baseline comparison."""
    from ._rate import format_rate as pct
    from ._text import table, visible

    k = repeats["k"]
    if k is None:
        lines = ["repeated runs: none (no scenario has two runs or more): pass^k cannot be computed"]
    else:
        o = repeats["overall"]
        lines = [
            f"repeated runs (k={k}): pass@{k} {pct(o['pass_at_k'])}  pass^{k} {pct(o['pass_hat_k'])}  "
            f"({o['scored']} of {o['scenarios']} scenario(s) scored, {o['runs']} runs)"
        ]
        shown = {sid: r for sid, r in repeats["scenarios"].items() if r["n"] >= 2 or r["pass_hat_k"] is not None}
        if shown:
            rows = [
                [visible(sid), str(r["n"]), str(r["c"]), pct(r["pass_at_k"]), pct(r["pass_hat_k"])]
                for sid, r in shown.items()
            ]
            lines += table(["scenario", "runs", "passed", f"pass@{k}", f"pass^{k}"], rows, indent=indent)
        single = len(repeats["scenarios"]) - len(shown)
        if single:
            lines.append(f"{indent}({single} scenario(s) with a single run, fewer than k={k}: not scored)")
    base = repeats.get("baseline")
    if base is not None and k is not None:
        lines.append(
            f"repeats vs baseline {base['path']} (k={k}): {len(base['regressed'])} regressed, {len(base['improved'])} improved"
        )
        for label in ("regressed", "improved"):
            for sid in base[label]:
                row = base["scenarios"][sid]
                b, c = row["baseline"], row["current"]
                if b is None or c is None:  # pragma: no cover - regressed/improved rows have both
                    continue
                lines.append(
                    f"{indent}{label}: {visible(sid)} pass^{k} {pct(b['pass_hat_k'])} -> {pct(c['pass_hat_k'])}"
                    f"  (runs passed {b['c']}/{b['n']} -> {c['c']}/{c['n']})"
                )
    return lines
