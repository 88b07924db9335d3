"""The verdict of one run: ``Judgment`` (ARE's name) with its explanation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError, JudgmentError
from .failures import Failure, FailureKind, InputErrorFailure
from .trace import Trace


@dataclass(eq=False)
class Judgment:
    success: bool | None = False
    failure: Failure | None = None
    agent_event_id_to_oracle_event_id: dict[str, str] = field(default_factory=dict)
    scenario_id: str = ""
    run_id: str = ""
    source: str | None = None
    nb_turns: int = 0
    turns_judged: int = 0
    matching: str = "greedy"
    notes: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    """Extension data (LLM usage, evaluator results...)."""
    trace: Trace | None = None
    """What the judge saw and decided per event (what reports draw); None when nothing was judged."""
    expected: str | None = None
    """``"fail"`` for a run declared known-bad."""
    run_number: int | None = None

    @classmethod
    def for_input_error(
        cls, exc: InputError, *, scenario_id: str = "", run_id: str = "", source: str | None = None
    ) -> Judgment:
        """The judgment of a run that could not be judged because of bad input (an error)."""
        if source:
            exc.with_file(source)
        return cls(
            success=False,
            failure=InputErrorFailure.from_error(exc),
            scenario_id=scenario_id,
            run_id=run_id,
            source=source or exc.file,
        )

    @property
    def failure_kind(self) -> str | None:
        return self.failure.kind.value if self.failure is not None else None

    @property
    def is_error(self) -> bool:
        """The judge could not decide (bad input, LLM unavailable...): never a pass."""
        return self.failure is not None and self.failure.kind.is_error

    @property
    def rationale(self) -> str:
        """ARE's rationale text (``"None"`` on success, as ARE)."""
        return str(self.failure) if self.failure is not None else "None"

    def __bool__(self) -> bool:
        return bool(self.success)

    def assert_success(self) -> Judgment:
        __tracebackhide__ = True
        if not self.success:
            raise JudgmentError(self)
        return self

    def render(self, *, color: bool = False) -> str:
        from .render import render_judgment

        return render_judgment(self, color=color)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario_id": self.scenario_id,
            "run_id": self.run_id,
            "path": self.source,
            "success": self.success,
            "failure": str(self.failure) if self.failure is not None else None,
            "failure_kind": self.failure_kind,
            "failure_detail": self.failure.to_dict() if self.failure is not None else None,
            "categories": self.failure.categories if self.failure is not None else [],
            "matches": dict(self.agent_event_id_to_oracle_event_id),
            "nb_turns": self.nb_turns,
            "turns_judged": self.turns_judged,
            "matching": self.matching,
            "notes": list(self.notes),
            "expected": self.expected,
            "run_number": self.run_number,
            "trace": self.trace.to_dict() if self.trace is not None else None,
            **({"extras": self.extras} if self.extras else {}),
        }


__all__ = ["FailureKind", "Judgment", "JudgmentError"]
