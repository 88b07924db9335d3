"""Every exception of pytest-are-judge, under one base class.  No logic, no imports of ours."""

from __future__ import annotations

from typing import Any


def describe_location(file: str | None, event_id: str | None, field: str | None) -> str:
    """'file F, event E, field X' with the parts that are known."""
    parts = (file and f"file {file}", event_id and f"event {event_id}", field and f"field {field}")
    return ", ".join(p for p in parts if p)


class AreJudgeError(Exception):
    """Base class of every error raised by pytest-are-judge."""


class InputError(AreJudgeError, ValueError):
    """Bad input (file, event, field, config): rendered without a traceback, never a pass."""

    def __init__(self, message: str, *, file: str | None = None, event_id: str | None = None, field: str | None = None):
        self.message, self.file, self.event_id, self.field = message, file, event_id, field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = describe_location(self.file, self.event_id, self.field)
        return f"{where}: {self.message}" if where else self.message

    def with_file(self, file: str) -> InputError:
        """Name ``file`` when the error does not name one yet."""
        if self.file is None:
            self.file = file
            self.args = (str(self),)
        return self


class UsageError(AreJudgeError):
    """A bad option or option value (the plugin raises it as ``pytest.UsageError``, the CLI exits 2)."""


class UnknownCheckerError(InputError, KeyError):
    """No checker function is registered under this name."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name, self.known = name, known
        super().__init__(f"unknown checker {name!r}; known checkers: {', '.join(known)}")


class CheckerInputError(AreJudgeError, ValueError):
    """A checker was given a value it cannot compare (``expected <what>, got <value>``)."""

    def __init__(self, expected: str, received: object, *, checker: str | None = None) -> None:
        self.expected, self.received, self.checker = expected, received, checker
        shown = repr(received)
        super().__init__(f"expected {expected}, got {shown if len(shown) <= 120 else shown[:117] + '...'}")


class JudgeUnavailableError(AreJudgeError, RuntimeError):
    """A judge (LLM, code judge) could not decide: the judgment is an error, never a pass."""

    def __init__(self, message: str, *, kind: str = "judge_unavailable", data: dict[str, Any] | None = None):
        super().__init__(message)
        self.kind = kind
        self.data: dict[str, Any] = dict(data or {})


class CodeJudgeError(JudgeUnavailableError):
    """A code judge could not give a verdict; ``data`` holds argv, exit code and stderr."""

    def __init__(self, message: str, *, data: dict[str, Any] | None = None) -> None:
        super().__init__(message, kind="code_judge_error", data=data)

    def __str__(self) -> str:
        text = str(self.args[0]) if self.args else "code judge error"
        stderr = self.data.get("stderr")
        return text + ("\n--- stderr ---\n" + str(stderr).rstrip() if stderr else "")


class CheckerRaised(AreJudgeError):
    """A checker raised (or an argument was missing) while a pair was validated: ARE aborts the
    whole judgment there (rationale ``"Exception"``); raised inside the judge to do the same."""

    def __init__(self, *, oracle_event_id: str, agent_event_id: str, checker: str, arg: str, error: str) -> None:
        self.oracle_event_id, self.agent_event_id, self.checker, self.arg, self.error = (
            oracle_event_id,
            agent_event_id,
            checker,
            arg,
            error,
        )
        super().__init__(f"{checker} on argument {arg!r} ({oracle_event_id} vs {agent_event_id}): {error}")


class LLMCallError(AreJudgeError, RuntimeError):
    """A model call failed for good (after the allowed retries)."""


class JudgmentError(AreJudgeError, AssertionError):
    """A judged run did not pass; its text is the judgment's rich failure report."""

    def __init__(self, judgment: Any) -> None:
        self.judgment = judgment
        super().__init__(judgment.render())


class CouldNotJudge(AreJudgeError):
    """The judge could not decide (input error, LLM unavailable...): reported as an error."""

    def __init__(self, judgment: Any) -> None:
        self.judgment = judgment
        super().__init__(judgment.render())


def format_validation_error(exc: Exception) -> str:
    """A pydantic ValidationError as short 'field: problem (got value)' parts."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    parts = []
    for err in errors():
        loc = ".".join(str(p) for p in err.get("loc", ()))
        shown = repr(err.get("input"))
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        parts.append(f"{loc or '<root>'}: {err.get('msg', 'invalid')} (got {shown})")
    return "; ".join(parts)
