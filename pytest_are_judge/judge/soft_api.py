"""The seam between the matching engine and LLM (soft) judging.

The engine never imports an LLM library: it hands :class:`SoftRequest` batches to whatever
:class:`SoftJudge` it was given (see :mod:`pytest_are_judge.soft`).
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


class JudgeUnavailableError(RuntimeError):
    """A soft judge could not decide; the judgment becomes an error, never a pass."""

    def __init__(self, message: str, *, kind: str = "judge_unavailable") -> None:
        super().__init__(message)
        self.kind = kind
