"""Rendering judgments: ARE-faithful text plus a rich report for people."""

from __future__ import annotations

from typing import Any

from .._text import shorten, table, visible
from .failures import (
    CheckerExceptionFailure,
    EventComparisonFailure,
    EventComparisonFailureType,
    Failure,
    OracleEventMatchingFailure,
    TimeCheck,
    ToolCallCountsFailure,
)


def _short(v: Any, width: int = 60) -> str:
    return shorten(visible(v if isinstance(v, str) else repr(v)), width)


def render_time(tc: TimeCheck) -> str:
    if tc.mode == "skipped":
        return f"time: not checked (oracle delay {tc.expected:g}s from {tc.reference} is within the threshold)"
    if tc.mode == "not_checked":
        return f"time: not checked (the agent log has no timestamps; oracle delay {tc.expected:g}s)"
    lo = "-inf" if tc.low is None else f"{tc.low:g}s"
    hi = "+inf" if tc.high is None else f"{tc.high:g}s"
    what = "absolute time" if tc.mode == "absolute" else f"delay after {tc.reference}"
    mark = "✓" if tc.passed else "✗"
    comp = f" [{tc.comparator}]" if tc.comparator else ""
    return f"time {mark}: {what} {tc.actual:g}s, window [{lo}, {hi}]{comp} around oracle {tc.expected:g}s"


def render_attempt(f: EventComparisonFailure, indent: str = "  ") -> list[str]:
    lines = [f"{indent}agent event {f.agent_event_id} ({f.agent_tool_name}): {f.failure_type.value}"]
    d = f.detail
    if f.failure_type == EventComparisonFailureType.CAUSALITY and d is not None:
        lines.append(f"{indent}  causality: {d.message}")
        return lines
    if d is None:
        return lines
    if d.message and d.reason not in ("accepted",):
        lines.append(f"{indent}  {d.reason}: {d.message}")
    if d.time is not None:
        lines.append(f"{indent}  {render_time(d.time)}")
    if d.args:
        rows = [
            [
                "·" if r.note.startswith("not checked") else ("✓" if r.passed else "✗"),
                r.arg,
                r.checker,
                _short(r.expected),
                _short(r.actual),
                visible(r.note),
            ]
            for r in d.args
        ]
        lines += table(["", "argument", "checker", "expected", "actual", "note"], rows, indent=indent + "  ")
    return lines


def render_failure(failure: Failure) -> str:
    """ARE's text followed by an explanation of what went wrong."""
    text = str(failure)
    extra: list[str] = []
    if isinstance(failure, OracleEventMatchingFailure):
        extra.append(f"Oracle event {failure.oracle_event_id} (turn {failure.turn}) was not matched.")
        relevant = [
            a for a in failure.comparison_failures if a.failure_type != EventComparisonFailureType.ALREADY_MATCHED
        ]
        if not relevant:
            extra.append(f"No unmatched agent call of {failure.oracle_tool_name} was available.")
        if failure.closest is not None:
            extra.append("Closest candidate:")
            extra += render_attempt(failure.closest)
        others = [a for a in relevant if a is not failure.closest]
        if others:
            extra.append("Other candidates:")
            for a in others:
                extra += render_attempt(a)
        if failure.note:
            extra.append(f"Note: {failure.note}")
    elif isinstance(failure, CheckerExceptionFailure):
        extra.append(
            f"The {failure.checker} check of argument {failure.arg!r} raised while comparing agent event "
            f"{failure.agent_event_id} with oracle event {failure.oracle_event_id} (turn {failure.turn}): "
            f"{failure.error}"
        )
        extra.append(
            "ARE aborts the whole judgment here (rationale 'Exception'); checker_errors='reject' "
            "rejects that candidate and tries the others instead."
        )
    elif isinstance(failure, ToolCallCountsFailure):
        extra.append(f"Turn {failure.turn}: write calls per tool (agent vs oracle):")
        rows = [[t, str(a), str(o)] for t, a, o in failure.discrepancies()]
        rows.append(
            [
                "messages to user",
                str(failure.agent_aui_count),
                f"{failure.oracle_aui_count} (+{failure.extra_send_message_to_user_allowed} allowed)",
            ]
        )
        extra += table(["tool", "agent", "oracle"], rows, indent="  ")
    if not extra:
        return text
    return text + "\n\n" + "\n".join(extra)


def render_judgment(judgment: Any, *, color: bool = False) -> str:
    """The report people read: every control character in it (agent text included) is shown
    as an escape, so it can be printed to a terminal as it is."""
    return visible(_render_judgment(judgment), multiline=True)


def _render_judgment(judgment: Any) -> str:
    head = f"{judgment.scenario_id}:{judgment.run_id}" + (f" ({judgment.source})" if judgment.source else "")
    if judgment.success:
        return f"PASS {head}: {len(judgment.agent_event_id_to_oracle_event_id)} events matched over {judgment.nb_turns} turn(s)"
    kind = judgment.failure_kind or "failure"
    status = "ERROR" if judgment.is_error else "FAIL"
    body = render_failure(judgment.failure) if judgment.failure is not None else "no failure recorded"
    matched = judgment.agent_event_id_to_oracle_event_id
    tail = f"\n\nMatched before the failure: {matched}" if matched else ""
    return f"{status} {head} [{kind}]\n{body}{tail}"
