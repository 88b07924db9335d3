"""The one exception type for bad input: it always names where the problem is."""

from __future__ import annotations


def describe_location(file: str | None, event_id: str | None, field: str | None) -> str:
    """'file F, event E, field X' with the parts that are known."""
    parts = (file and f"file {file}", event_id and f"event {event_id}", field and f"field {field}")
    return ", ".join(p for p in parts if p)


class InputError(ValueError):
    """Bad input (file, event, field, config).  Rendered without a traceback."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        event_id: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.event_id = event_id
        self.field = field
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = describe_location(self.file, self.event_id, self.field)
        return f"{where}: {self.message}" if where else self.message

    def with_file(self, file: str) -> InputError:
        if self.file is None:
            self.file = file
            self.args = (str(self),)
        return self

    def to_failure(self):  # -> InputErrorFailure (import kept local: judgment imports nothing heavy)
        from .judgment.failures import InputErrorFailure

        return InputErrorFailure(self.message, self.file, self.event_id, self.field)


class JudgeUnavailableError(RuntimeError):
    """A soft judge could not decide; the judgment becomes an error, never a pass."""

    def __init__(self, message: str, *, kind: str = "judge_unavailable") -> None:
        super().__init__(message)
        self.kind = kind


def format_validation_error(exc: Exception) -> str:
    """A pydantic ValidationError as short 'field: problem' lines."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    lines = []
    for err in errors():
        loc = ".".join(str(p) for p in err.get("loc", ()))
        msg = err.get("msg", "invalid")
        inp = err.get("input")
        shown = repr(inp)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        lines.append(f"{loc or '<root>'}: {msg} (got {shown})")
    return "; ".join(lines)
