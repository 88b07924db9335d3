"""Typed failures.  ``str()`` of each reproduces ARE's rationale text exactly.

The structured fields carry what ARE's text cannot say (which argument differed, the time
window, which parent broke causality); :mod:`.render` turns them into a rich report.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError, describe_location


class FailureKind(str, enum.Enum):
    """Machine-readable failure kinds (``failure_kind`` in JSON output)."""

    TOOL_COUNT = "tool_count"
    ORACLE_EVENT_MATCHING = "oracle_event_matching"
    ENV_MATCHING = "env_matching"
    INPUT_ERROR = "input_error"
    JUDGE_UNAVAILABLE = "judge_unavailable"
    INCONCLUSIVE = "inconclusive"
    CODE_JUDGE_ERROR = "code_judge_error"
    EVALUATOR_REJECT = "evaluator_reject"
    INCONTEXT_REJECT = "in_context_reject"
    CHECKER_EXCEPTION = "checker_exception"

    @property
    def is_error(self) -> bool:
        """Errors mean 'could not decide' (a pytest error), not 'the agent was wrong'."""
        return self in _ERROR_KINDS


_ERROR_KINDS = {
    FailureKind.INPUT_ERROR,
    FailureKind.JUDGE_UNAVAILABLE,
    FailureKind.INCONCLUSIVE,
    FailureKind.CODE_JUDGE_ERROR,
}


class Failure:
    """Base class of every failure."""

    kind: FailureKind

    def __str__(self) -> str:  # pragma: no cover - overridden
        return "Failure occurred."

    @property
    def categories(self) -> list[str]:
        """Coarse reasons for the CI summary (counts, causality, time, arguments, ...)."""
        return [self.kind.value]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "text": str(self)}


@dataclass(eq=False)
class ToolCallCountsFailure(Failure):
    agent_counter: Counter[str]
    agent_aui_count: int
    oracle_counter: Counter[str]
    oracle_aui_count: int
    extra_send_message_to_user_allowed: int
    turn: int = 0
    kind: FailureKind = field(default=FailureKind.TOOL_COUNT, init=False)

    def discrepancies(self) -> list[tuple[str, int, int]]:
        """(tool, agent count, oracle count): agent-higher first, then oracle-higher (ARE order)."""
        diff = self.agent_counter - self.oracle_counter
        diff.update(self.oracle_counter - self.agent_counter)
        return [(t, self.agent_counter.get(t, 0), self.oracle_counter.get(t, 0)) for t in diff]

    def __str__(self) -> str:
        parts: list[str] = []
        disc = self.discrepancies()
        if disc:
            lines = "\n".join(f"- Tool '{t}': Agent count {a}, Oracle count {o}" for t, a, o in disc)
            parts.append(f"Agent and oracle counters do not match for the following tools:\n{lines}")
        if self.oracle_aui_count > self.agent_aui_count:
            parts.append(f"Oracle sent {self.oracle_aui_count - self.agent_aui_count} more message(s) than agent.")
        if self.agent_aui_count > self.oracle_aui_count + self.extra_send_message_to_user_allowed:
            parts.append(
                "Agent message to user count exceeds oracle AUI count by more than "
                f"{self.extra_send_message_to_user_allowed}."
            )
        return "Failure: \n" + "\n".join(parts)

    @property
    def categories(self) -> list[str]:
        return ["counts"]

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "turn": self.turn,
            "discrepancies": [{"tool": t, "agent": a, "oracle": o} for t, a, o in self.discrepancies()],
            "agent_aui_count": self.agent_aui_count,
            "oracle_aui_count": self.oracle_aui_count,
            "extra_send_message_to_user_allowed": self.extra_send_message_to_user_allowed,
        }


class EventComparisonFailureType(str, enum.Enum):
    CAUSALITY = "causality"
    ALREADY_MATCHED = "already matched"
    TOOL_JUDGE_REJECT = "tool judge reject"


@dataclass(eq=False)
class ArgCheck:
    """One row of the per-argument table: which checker ran, on what, and its verdict."""

    arg: str
    checker: str
    expected: Any
    actual: Any
    passed: bool
    note: str = ""
    raised: bool = False
    """The checker raised (or the agent's call lacked the argument): where ARE aborts."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "arg": self.arg,
            "checker": self.checker,
            "expected": jsonable(self.expected),
            "actual": jsonable(self.actual),
            "passed": self.passed,
            "note": self.note,
        }


@dataclass(eq=False)
class TimeCheck:
    """The time window an agent event had to fall in, and where it fell."""

    mode: str  # "absolute" | "relative" | "skipped" | "not_checked" (the agent log has no times)
    comparator: str | None
    actual: float
    expected: float
    low: float | None
    high: float | None
    passed: bool
    reference: str = ""  # what the relative time is measured from
    ref_time: float | None = None
    """Absolute agent time of the reference (relative mode): the window is ``ref_time + [low, high]``."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(eq=False)
class RejectDetail:
    """Why a tool judge rejected a pair (ARE only says 'tool judge reject')."""

    reason: str  # "time" | "arguments" | "event_type" | "checker_error" | "soft" | ...
    args: list[ArgCheck] = field(default_factory=list)
    time: TimeCheck | None = None
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "message": self.message,
            "args": [a.to_dict() for a in self.args],
            "time": self.time.to_dict() if self.time else None,
        }


@dataclass(eq=False)
class EventComparisonFailure(Failure):
    agent_tool_name: str
    agent_event_id: str
    oracle_tool_name: str
    oracle_event_id: str
    failure_type: EventComparisonFailureType
    detail: RejectDetail | None = None
    parent_event_id: str | None = None
    """For causality: the oracle parent that was unmatched or matched too late."""
    kind: FailureKind = field(default=FailureKind.ORACLE_EVENT_MATCHING, init=False)

    def __str__(self) -> str:
        return (
            f"Failure matching agent event (ID: {self.agent_event_id}) with oracle event "
            f"(ID: {self.oracle_event_id}), reason: {self.failure_type.value}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_event_id": self.agent_event_id,
            "agent_tool_name": self.agent_tool_name,
            "oracle_event_id": self.oracle_event_id,
            "oracle_tool_name": self.oracle_tool_name,
            "reason": self.failure_type.value,
            "parent_event_id": self.parent_event_id,
            "detail": self.detail.to_dict() if self.detail else None,
        }


@dataclass(eq=False)
class OracleEventMatchingFailure(Failure):
    oracle_tool_name: str
    oracle_tool_args: dict[str, str]
    comparison_failures: list[EventComparisonFailure]
    oracle_event_id: str = ""
    turn: int = 0
    closest: EventComparisonFailure | None = None
    """The attempt that came closest (same tool, most arguments right)."""
    note: str = ""
    """Extra explanation, e.g. that an assignment exists which greedy matching missed."""
    kind: FailureKind = field(default=FailureKind.ORACLE_EVENT_MATCHING, init=False)

    def __str__(self) -> str:
        args_lines = []
        for k, v in self.oracle_tool_args.items():
            line = f"-{k}: {v}"
            if len(line) > 200:
                line = line[:200] + "..."
            args_lines.append(line)
        attempts = "\n".join(f"-{f}" for f in self.comparison_failures)
        return (
            "Failure: Agent did not perform the following oracle tool call:\n"
            f"tool name: {self.oracle_tool_name}\n"
            "tool args:\n" + "\n".join(args_lines) + "\n\n"
            "List of matching attempts:\n" + attempts
        )

    @property
    def categories(self) -> list[str]:
        reasons: list[str] = []
        relevant = [f for f in self.comparison_failures if f.failure_type != EventComparisonFailureType.ALREADY_MATCHED]
        if not relevant:
            return ["missing_call"]
        for f in relevant:
            if f.failure_type == EventComparisonFailureType.CAUSALITY:
                cat = "causality"
            elif f.detail is not None and f.detail.reason == "time":
                cat = "time"
            elif f.detail is not None and f.detail.reason in ("checker_error", "soft"):
                cat = f.detail.reason
            else:
                cat = "arguments"
            if cat not in reasons:
                reasons.append(cat)
        return reasons

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "turn": self.turn,
            "oracle_event_id": self.oracle_event_id,
            "oracle_tool_name": self.oracle_tool_name,
            "oracle_tool_args": dict(self.oracle_tool_args),
            "attempts": [f.to_dict() for f in self.comparison_failures],
            "closest": self.closest.to_dict() if self.closest else None,
            "categories": self.categories,
            "note": self.note,
        }


@dataclass(eq=False)
class EnvOracleMatchingFailure(Failure):
    oracle_event_id: str
    turn: int = 0
    kind: FailureKind = field(default=FailureKind.ENV_MATCHING, init=False)

    def __str__(self) -> str:
        return f"Failure: Oracle env/user event {self.oracle_event_id} could not be matched. This is likely a bug !"

    @property
    def categories(self) -> list[str]:
        return ["env_matching"]

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "oracle_event_id": self.oracle_event_id, "turn": self.turn}


@dataclass(eq=False)
class CheckerExceptionFailure(Failure):
    """A checker raised while validating a pair (or the agent's call lacked an argument): ARE
    aborts the whole judgment and reports the rationale ``"Exception"`` (a failure, not an
    error).  ``checker_errors="reject"`` rejects that candidate and tries the others instead."""

    oracle_event_id: str
    agent_event_id: str
    checker: str
    arg: str
    error: str
    turn: int = 0
    kind: FailureKind = field(default=FailureKind.CHECKER_EXCEPTION, init=False)

    def __str__(self) -> str:
        return "Exception"

    @property
    def categories(self) -> list[str]:
        return ["checker_exception"]

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "oracle_event_id": self.oracle_event_id,
            "agent_event_id": self.agent_event_id,
            "checker": self.checker,
            "arg": self.arg,
            "error": self.error,
            "turn": self.turn,
        }


@dataclass(eq=False)
class InputErrorFailure(Failure):
    """The inputs cannot be judged (malformed file, unknown tool, bad config...).

    Never a pass; reported as an error, naming the file, event and field.
    """

    message: str
    file: str | None = None
    event_id: str | None = None
    field_name: str | None = None
    kind: FailureKind = field(default=FailureKind.INPUT_ERROR, init=False)

    @classmethod
    def from_error(cls, exc: InputError) -> InputErrorFailure:
        return cls(exc.message, exc.file, exc.event_id, exc.field)

    def __str__(self) -> str:
        where = describe_location(self.file, self.event_id, self.field_name)
        return f"Input error{' (' + where + ')' if where else ''}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "message": self.message,
            "file": self.file,
            "event_id": self.event_id,
            "field": self.field_name,
        }


@dataclass(eq=False)
class GenericFailure(Failure):
    """A failure produced by an extension (LLM judge, code judge, evaluator)."""

    kind: FailureKind
    message: str
    data: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"Failure: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "message": self.message, **{k: jsonable(v) for k, v in self.data.items()}}


def jsonable(value: Any) -> Any:
    """Plain JSON data (containers recursed, anything else as ``str``)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)
