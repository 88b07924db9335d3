"""What the judge saw and decided, event by event: everything a report draws.

Reports (HTML, Markdown, JSON) and renderings read a run's :class:`Trace` only; nothing is
judged or planned again to draw it.  Times are seconds after the scenario start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

OracleState = Literal["matched", "rejected", "not_reached"]
"""``matched``: an agent event satisfied it; ``rejected``: the judge tried and failed here (the
event the failure is about, or a tool whose call count differs in the failing turn);
``not_reached``: never tried, because judging stopped at an earlier failure."""


@dataclass(eq=False)
class OracleNode:
    """One judged oracle event."""

    id: str
    tool: str
    type: str
    turn: int
    parents: list[str]
    """Same-turn parents in the judge's graph (what causality and times are checked against)."""
    deps: list[str]
    """Nearest judged ancestors over all turns (edges of the drawn graph)."""
    oracle_time: float
    """When it happened in the oracle run."""
    expected_time: float
    """Where the agent was expected to do it: its own times of the reference parents plus the
    oracle's delay (the absolute time for absolute events).  The centre of the window."""
    args: dict[str, Any]
    state: OracleState
    agent_event: str | None = None
    window: tuple[float | None, float | None] | None = None
    """The time window that was checked (None: no time check ran for this event)."""
    note: str = ""


@dataclass(eq=False)
class AgentNode:
    """One event of the agent's log."""

    id: str
    tool: str
    type: str
    time: float
    turn: int
    matched: str | None
    """The oracle event it was matched to."""
    judged: bool
    """Kept by the judge's filter (AGENT writes, USER/ENV events that did not fail)."""
    why_not: str = ""
    """Why it was not judged: ``failed call``, ``read-only``, ``environment expansion``."""


@dataclass(eq=False)
class Trace:
    start_time: float
    nb_turns: int
    turns_judged: int
    tolerances: dict[str, float]
    oracle: list[OracleNode] = field(default_factory=list)
    agent: list[AgentNode] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (built directly: ``dataclasses.asdict`` deep-copies every value)."""
        out = dict(self.__dict__)
        out["oracle"] = [dict(n.__dict__) for n in self.oracle]
        out["agent"] = [dict(a.__dict__) for a in self.agent]
        return out
