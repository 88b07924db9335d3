"""Recording, at the end of a judgment, what the judge saw and decided (:class:`~..judgment.trace.Trace`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._text import bounded, shorten
from ..judgment.failures import (
    EnvOracleMatchingFailure,
    OracleEventMatchingFailure,
    TimeCheck,
    ToolCallCountsFailure,
)
from ..judgment.trace import AgentNode, OracleNode, OracleState, Trace
from ..model import AUI_SEND_TO_USER, EventType
from .events import keep, preprocess
from .timing import reference

if TYPE_CHECKING:
    from .engine import JudgeSession


def _id(text: str) -> str:
    """An id as reports show it: bounded (agent logs may hold anything)."""
    return text if len(text) <= 300 else shorten(text, 300)


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


def _window(tc: TimeCheck | None, start: float) -> tuple[float | None, float | None] | None:
    if tc is None or tc.mode in ("skipped", "not_checked"):
        return None  # no window was checked: none is drawn
    shift = (tc.ref_time if tc.mode == "relative" and tc.ref_time is not None else 0.0) - start
    return (None if tc.low is None else tc.low + shift, None if tc.high is None else tc.high + shift)


def _why_not(event: Any) -> str:
    if event.failed:
        return "failed call"
    if event.event_type in (EventType.ENV, EventType.USER):
        return "environment expansion"
    if event.event_type != EventType.AGENT:
        return f"{event.event_type.value} event"
    return "read-only"


def build_trace(session: JudgeSession) -> Trace:
    """The trace of ``session`` as it stands (offline: after :meth:`~.engine.JudgeSession.finish`)."""
    plan, state, start, cfg = session.plan, session.state, session.start_time, session.config
    failure = session.failure
    failed_ids: set[str] = set()
    failed_turn: int | None = None
    failed_tools: set[str] = set()
    rejected_check: TimeCheck | None = None
    if isinstance(failure, (OracleEventMatchingFailure, EnvOracleMatchingFailure)):
        failed_ids.add(failure.oracle_event_id)
        failed_turn = failure.turn
        if isinstance(failure, OracleEventMatchingFailure) and failure.closest is not None and failure.closest.detail:
            rejected_check = failure.closest.detail.time
    elif isinstance(failure, ToolCallCountsFailure):
        failed_turn = failure.turn
        failed_tools = {t for t, _, _ in failure.discrepancies()}
        o_aui, a_aui = failure.oracle_aui_count, failure.agent_aui_count
        if not o_aui <= a_aui <= o_aui + failure.extra_send_message_to_user_allowed:
            failed_tools.add(AUI_SEND_TO_USER)
    shown = set(plan.steps)
    deps = {e.event_id: list(e.dependencies) for e in session.scenario.events}
    expected: dict[str, float] = {}
    nodes: list[OracleNode] = []
    # a user/environment event is placed where the agent's log has it (matched by id), reached or not
    logged = {e.event_id: e.event_time for e in session.raw_events if e.event_type in (EventType.USER, EventType.ENV)}
    for turn_steps in plan.turns:
        for step in turn_steps:
            idx = state.oracle_to_idx.get(step.event_id)
            agent = state.agent_events[idx] if idx is not None else None
            node_state: OracleState
            note = ""
            if agent is not None:
                node_state, tc = "matched", state.time_checks.get(step.event_id)
            elif step.event_id in failed_ids or (step.turn == failed_turn and step.tool_name in failed_tools):
                node_state, tc = "rejected", rejected_check if step.event_id in failed_ids else None
                if step.event_id not in failed_ids:
                    note = "the turn's call counts differ for this tool"
            else:
                node_state, tc = "not_reached", None
                if step.turn == failed_turn and failed_tools:
                    note = "not tried: the turn's call counts differ"
            if step.event_type != EventType.AGENT and step.event_id in logged:
                exp = agent.event_time if agent is not None else logged[step.event_id]
            elif step.absolute_time is not None:
                exp = step.absolute_time
            else:
                parent_agent = []
                for p in step.parents:
                    j = state.oracle_to_idx.get(p)
                    parent_agent.append(state.agent_events[j].event_time if j is not None else expected.get(p, start))
                max_o, max_a, _ = reference(
                    [plan.steps[p].event_time for p in step.parents], parent_agent, step.parents, start
                )
                exp = max_a + (step.event_time - max_o)
            expected[step.event_id] = exp
            nodes.append(
                OracleNode(
                    id=_id(step.event_id),
                    tool=step.tool_name,
                    type=step.event_type.value,
                    turn=step.turn,
                    parents=list(step.parents),
                    deps=_ancestors_in(step.event_id, deps, shown),
                    oracle_time=step.event_time - start,
                    expected_time=exp - start,
                    args=bounded(step.args),  # type: ignore[arg-type]
                    state=node_state,
                    agent_event=_id(agent.event_id) if agent is not None else None,
                    window=_window(tc, start),
                    note=note,
                )
            )
    agents: list[AgentNode] = []
    turn = 0
    for e in sorted(session.raw_events, key=lambda ev: ev.event_time):
        pe = preprocess(e)
        judged = keep(pe)
        agents.append(
            AgentNode(
                id=_id(e.event_id),
                tool=pe.tool_name,
                type=pe.event_type.value,
                time=e.event_time - start,
                turn=turn,
                matched=state.id_map.get(e.event_id),  # an oracle id: from the scenario
                judged=judged,
                why_not="" if judged else _why_not(pe),
            )
        )
        if judged and pe.is_aui_message:
            turn += 1
    return Trace(
        start_time=start,
        nb_turns=plan.nb_turns,
        turns_judged=session.turn_idx + 1,
        tolerances={
            "pre": cfg.pre_event_tolerance_seconds,
            "post": cfg.post_event_tolerance_seconds,
            "threshold": cfg.check_time_threshold_seconds,
        },
        oracle=nodes,
        agent=agents,
    )
