"""A JSON-able view of one judged run, for visual reports (HTML, Markdown, JSON reports).

:func:`run_view` uses the judge's own plan (oracle steps, turns, judge-graph parents) and
config tolerances, so what the report draws is what the judge checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..judge.events import keep, preprocess
from ..judgment.failures import EnvOracleMatchingFailure, OracleEventMatchingFailure, ToolCallCountsFailure
from ..judgment.failures import jsonable as _jsonable
from ..judgment.result import Judgment
from ..model import Run

__all__ = ["build_report", "run_status", "run_view", "summarize_views"]


def run_status(judgment: Judgment) -> str:
    """``passed``, ``failed`` or ``error`` (the judge could not decide)."""
    if judgment.success:
        return "passed"
    return "error" if judgment.is_error else "failed"


def _window(comparator: Any, expected: float, pre: float, post: float) -> list[float | None]:
    from ..judge.timing import window

    lo, hi = window(comparator, expected, pre, post)
    return [lo, hi]


def _config_for(run: Run, config: Any) -> Any:
    from ..api import effective_config
    from ..judge.config import GraphPerEventJudgeConfig, config_from_mapping

    if isinstance(config, Mapping):
        config = config_from_mapping(dict(config))
    try:
        return effective_config(config if isinstance(config, GraphPerEventJudgeConfig) else None, run.scenario)
    except Exception:
        return config if isinstance(config, GraphPerEventJudgeConfig) else GraphPerEventJudgeConfig()


def _ancestors_in(eid: str, deps: dict[str, list[str]], shown: set[str]) -> list[str]:
    """Nearest shown ancestors of ``eid`` (walking through events that are not shown)."""
    out: list[str] = []
    seen: set[str] = set()
    stack = list(deps.get(eid, []))
    while stack:
        d = stack.pop(0)
        if d in seen:
            continue
        seen.add(d)
        if d in shown:
            if d not in out:
                out.append(d)
        else:
            stack.extend(deps.get(d, []))
    return out


def run_view(run: Run, judgment: Judgment, config: Any = None) -> dict[str, Any]:
    """Everything a visual report needs about one run, as plain JSON data.

    ``oracle_nodes``: ``{id, tool, type, turn, parents, deps, time, args, status,
    matched_agent_event}`` — ``parents`` are the judge's same-turn parents, ``deps`` the nearest
    judged ancestors over all turns; ``time`` is seconds after the scenario start; ``status`` is
    ``matched``, ``failed`` (the event the failure is about), ``unmatched`` (its turn was judged
    but it has no match) or ``not_reached`` (its turn was not judged).
    ``agent_events``: ``{id, tool, type, time, matched_oracle, judged, failed}``.
    ``windows``: ``{oracle_id: [lo, hi]}`` — where (seconds after start) the matching agent event
    had to fall, from the judge config's tolerances and the matched parents (``None`` bound =
    open; oracle events whose time is not checked have no window).
    """
    from ..judge.engine import GraphPerEventJudge

    cfg = _config_for(run, config)
    scenario = run.scenario
    start = scenario.start_time
    matches = dict(judgment.agent_event_id_to_oracle_event_id)
    oracle_to_agent = {o: a for a, o in matches.items()}
    agent_by_id = {e.event_id: e for e in run.events}
    failure = judgment.failure
    failed_ids: set[str] = set()
    failed_tools: set[str] = set()
    failed_turn: int | None = None
    if isinstance(failure, (OracleEventMatchingFailure, EnvOracleMatchingFailure)):
        failed_ids.add(failure.oracle_event_id)
        failed_turn = failure.turn
    elif isinstance(failure, ToolCallCountsFailure):
        failed_turn = failure.turn
        failed_tools = {t for t, _, _ in failure.discrepancies()}
        o_aui, a_aui = failure.oracle_aui_count, failure.agent_aui_count
        if not o_aui <= a_aui <= o_aui + failure.extra_send_message_to_user_allowed:
            failed_tools.add("AgentUserInterface__send_message_to_user")
    nodes: list[dict[str, Any]] = []
    windows: dict[str, list[float | None]] = {}
    plan_error = None
    try:
        plan = GraphPerEventJudge(cfg).plan(scenario)
        steps = [s for turn in plan.turns for s in turn]
        nb_turns = plan.nb_turns
    except Exception as exc:
        plan_error = str(exc)
        steps = []
        nb_turns = judgment.nb_turns
    shown = {s.event_id for s in steps}
    deps = {e.event_id: list(e.dependencies) for e in scenario.events}
    judged_turns = judgment.turns_judged
    step_by_id = {s.event_id: s for s in steps}
    for s in steps:
        agent_id = oracle_to_agent.get(s.event_id)
        if agent_id is not None:
            status = "matched"
        elif s.event_id in failed_ids or (failed_turn == s.turn and s.tool_name in failed_tools):
            status = "failed"
        elif s.turn < judged_turns:
            status = "unmatched"
        else:
            status = "not_reached"
        nodes.append(
            {
                "id": s.event_id,
                "tool": s.tool_name,
                "type": s.event_type.value,
                "turn": s.turn,
                "parents": list(s.parents),
                "deps": _ancestors_in(s.event_id, deps, shown),
                "time": s.event_time - start,
                "args": _jsonable(s.args),
                "status": status,
                "matched_agent_event": agent_id,
            }
        )
        if s.event_type.value != "AGENT":
            continue
        if s.absolute_time is not None:
            windows[s.event_id] = [
                None if v is None else v - start
                for v in _window(
                    s.comparator, s.absolute_time, cfg.pre_event_tolerance_seconds, cfg.post_event_tolerance_seconds
                )
            ]
            continue
        t_o = [step_by_id[p].event_time for p in s.parents] + [start]
        t_a = []
        for p in s.parents:
            aid = oracle_to_agent.get(p)
            ev = agent_by_id.get(aid) if aid else None
            t_a.append(ev.event_time if ev is not None else start)
        t_a.append(start)
        max_o = max(t_o)
        ref_a = max(t_a[i] for i, t in enumerate(t_o) if t >= max_o)
        oracle_rel = s.event_time - max_o
        if not (oracle_rel > cfg.check_time_threshold_seconds or s.comparator is not None):
            continue
        lo, hi = _window(s.comparator, oracle_rel, cfg.pre_event_tolerance_seconds, cfg.post_event_tolerance_seconds)
        windows[s.event_id] = [None if lo is None else ref_a + lo - start, None if hi is None else ref_a + hi - start]
    agent_events = []
    for e in run.events:
        pe = preprocess(e)
        agent_events.append(
            {
                "id": e.event_id,
                "tool": pe.tool_name,
                "type": pe.event_type.value,
                "time": e.event_time - start,
                "matched_oracle": matches.get(e.event_id),
                "judged": keep(pe),
                "failed": e.failed,
                "args": _jsonable(e.args),
            }
        )
    jd = judgment.to_dict()
    return {
        "scenario_id": scenario.scenario_id,
        "run_id": run.run_id,
        "name": run.name,
        "source": run.source,
        "run_number": run.run_number,
        "expected": run.expected,
        "status": run_status(judgment),
        "failure_kind": judgment.failure_kind,
        "categories": jd.get("categories", []),
        "nb_turns": nb_turns,
        "turns_judged": judged_turns,
        "start_time": start,
        "tolerances": {
            "pre": cfg.pre_event_tolerance_seconds,
            "post": cfg.post_event_tolerance_seconds,
            "threshold": cfg.check_time_threshold_seconds,
        },
        "oracle_nodes": nodes,
        "agent_events": agent_events,
        "windows": windows,
        "failure_text": judgment.render() if not judgment.success else "",
        "plan_error": plan_error,
        "judgment": jd,
    }


def unjudged_view(*, failure_text: str, status: str = "error", **fields: Any) -> dict[str, Any]:
    """A view for a run with no graph to draw (input error, not judged, or known only from its
    record): the :func:`run_view` fields, empty where there is nothing to show, then ``fields``."""
    view: dict[str, Any] = {
        "scenario_id": None,
        "run_id": None,
        "name": None,
        "source": None,
        "status": status,
        "failure_kind": "input_error" if status == "error" else None,
        "categories": [],
        "oracle_nodes": [],
        "agent_events": [],
        "windows": {},
        "failure_text": failure_text,
        "judgment": None,
        "nb_turns": 0,
        "turns_judged": 0,
        "expected": None,
        "run_number": None,
    }
    view.update(fields)
    return view


def summarize_views(views: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts per status and per failure kind."""
    views = list(views)
    by_status: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    for v in views:
        by_status[v["status"]] = by_status.get(v["status"], 0) + 1
        if v.get("failure_kind"):
            by_kind[v["failure_kind"]] = by_kind.get(v["failure_kind"], 0) + 1
    return {
        "total": len(views),
        "passed": by_status.get("passed", 0),
        "failed": by_status.get("failed", 0),
        "expected_failures": sum(1 for v in views if is_expected_failure(v)),
        "error": by_status.get("error", 0),
        "by_failure_kind": dict(sorted(by_kind.items())),
    }


def is_expected_failure(view: Mapping[str, Any]) -> bool:
    """A failed run that was declared known-bad (``expect: fail``, or ``.xfail.`` in an ARE
    trace's name; the readers set ``expected``).  A run xfailed only because it failed in a
    baseline too was not declared known-bad."""
    return view.get("status") == "failed" and view.get("expected") == "fail"


def build_report(
    views: Iterable[Mapping[str, Any]], *, summary: Mapping[str, Any] | None = None, title: str | None = None
) -> dict[str, Any]:
    """``{"runs": [...], "summary": {...}}`` as :func:`render_html` / :func:`render_markdown` take it."""
    views = list(views)
    report: dict[str, Any] = {"runs": views, "summary": {**summarize_views(views), **(summary or {})}}
    if title:
        report["title"] = title
    return report
