"""The seam between the matching engine and LLM (soft) judging: plain types, no LLM library.

The engine hands :class:`SoftRequest` batches to whatever :class:`SoftJudge` it was given
(:func:`pytest_are_judge.soft.build_soft_judge` by default) and gets :class:`SoftVerdict` back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..model import UserDetails


@dataclass(eq=False)
class SoftRequest:
    """One (agent call, oracle call) pair whose LLM-judged arguments must be decided."""

    tool_name: str
    agent_args: dict[str, Any]
    oracle_args: dict[str, Any]
    llm_args: list[str]
    """Names of the arguments to judge (oracle value truthy; equality pre-check failed)."""
    oracle_event_id: str
    agent_event_id: str
    tasks: list[str]
    """Per-turn tasks up to and including the oracle event's turn."""
    user: UserDetails | None
    oracle_event_time: float | None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class SoftVerdict:
    passed: bool | None
    """True/False, or None when the judge could not decide (never treated as a pass)."""
    rationale: str = ""
    checker: str = ""
    error: str | None = None
    """Set when the judge was unavailable (network, malformed answer...)."""


class SoftJudge(Protocol):
    def check_many(self, requests: list[SoftRequest]) -> list[SoftVerdict]:
        """Decide every request (implementations may run them concurrently)."""
        ...
