"""ARE's time-window rules (judge.py:270-323, event_judge.py:92-169)."""

from __future__ import annotations

from ..judgment.failures import TimeCheck
from ..model import TimeComparator


def window(
    comparator: TimeComparator | None, expected: float, pre: float, post: float
) -> tuple[float | None, float | None]:
    if comparator is None or comparator == TimeComparator.EQUAL:
        return expected - pre, expected + post
    if comparator == TimeComparator.LESS_THAN:
        return None, expected + post
    if comparator == TimeComparator.GREATER_THAN:
        return expected - pre, None
    raise ValueError(f"unknown time comparator {comparator!r}")  # pragma: no cover - enum-guarded


def check_time(
    *,
    agent_time: float,
    oracle_time: float,
    absolute_time: float | None,
    comparator: TimeComparator | None,
    parent_oracle_times: list[float],
    parent_agent_times: list[float],
    parent_ids: list[str],
    start_time: float,
    threshold: float,
    pre: float,
    post: float,
) -> TimeCheck:
    """One time check.

    Absolute: the agent time against the absolute oracle time.  Relative: the delay after the
    reference parent(s).  The agent's reference is the latest agent time among the parents that
    were latest in the oracle run (ARE's argmax parent-time rule), scenario start included on ties.
    Checked only when the oracle delay exceeds ``threshold`` or a comparator is set.
    """
    comp = comparator.value if comparator else None
    if absolute_time is not None:
        lo, hi = window(comparator, absolute_time, pre, post)
        ok = (lo is None or agent_time >= lo) and (hi is None or agent_time <= hi)
        return TimeCheck("absolute", comp, agent_time, absolute_time, lo, hi, ok, "absolute time")
    max_o, max_a, ref = reference(parent_oracle_times, parent_agent_times, parent_ids, start_time)
    agent_rel = agent_time - max_a
    oracle_rel = oracle_time - max_o
    if not (oracle_rel > threshold or comparator is not None):
        return TimeCheck("skipped", comp, agent_rel, oracle_rel, None, None, True, ref, max_a)
    lo, hi = window(comparator, oracle_rel, pre, post)
    ok = (lo is None or agent_rel >= lo) and (hi is None or agent_rel <= hi)
    return TimeCheck("relative", comp, agent_rel, oracle_rel, lo, hi, ok, ref, max_a)


def reference(
    parent_oracle_times: list[float], parent_agent_times: list[float], parent_ids: list[str], start_time: float
) -> tuple[float, float, str]:
    """``(oracle reference time, agent reference time, its name)`` of a relative time check.

    Candidates are the parents, then the scenario start; the reference is the first candidate
    with the latest agent time among those with the latest oracle time (ARE's argmax rule)."""
    max_o = start_time
    for t in parent_oracle_times:
        if t > max_o:
            max_o = t
    max_a: float | None = None
    ref = ""
    for t, a, name in zip(parent_oracle_times, parent_agent_times, parent_ids):
        if t >= max_o and (max_a is None or a > max_a):
            max_a, ref = a, name
    if start_time >= max_o and (max_a is None or start_time > max_a):
        max_a, ref = start_time, "scenario start"
    assert max_a is not None  # the start is a candidate when no parent is
    return max_o, max_a, ref
