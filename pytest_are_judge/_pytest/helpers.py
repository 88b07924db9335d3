"""Failure reports of test functions that raised :class:`~pytest_are_judge.JudgmentError`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def judgment_longrepr(item: pytest.Item, excinfo: pytest.ExceptionInfo[BaseException]) -> str | None:
    """The user's line (where the judgment was asserted) followed by the rich rendering."""
    judgment = getattr(excinfo.value, "judgment", None)
    if judgment is None:
        return None
    try:
        tb = excinfo.traceback.filter(excinfo)
        entry = tb[-1] if len(tb) else None
    except Exception:
        entry = None
    head = ""
    if entry is not None:
        try:
            path = Path(entry.path).resolve().relative_to(item.config.rootpath).as_posix()
        except (ValueError, TypeError):
            path = str(entry.path)
        try:
            statement = str(entry.statement).strip()
        except Exception:
            statement = ""
        head = f"{path}:{entry.lineno + 1}: in {entry.name}\n" + "".join(
            f"    {line}\n" for line in statement.splitlines()
        )
    return head + str(judgment.render())


def describe_target(target: Any) -> tuple[str, str | None, str | None]:
    """Normalise an ``are_scenario`` binding: a path, ``(path, run)``, or ``{"path", "run", "oracle"}``."""
    if isinstance(target, dict):
        return str(target["path"]), target.get("run"), target.get("oracle")
    if isinstance(target, (tuple, list)):
        if not 1 <= len(target) <= 3:
            raise TypeError(f"are_scenario: expected (path[, run[, oracle]]), got {target!r}")
        path, run, oracle = (list(target) + [None, None])[:3]
        return str(path), run, oracle
    return str(target), None, None
