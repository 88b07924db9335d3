"""The checker-function registry and ARE's default per-tool registries.

* One name → function registry for hard and scripted checkers, pre-populated with the
  functions of :mod:`._hard` under their :class:`CheckerType` names.  ``llm_checker`` has no
  per-argument function; ``code_judge`` resolves lazily to
  :func:`pytest_are_judge.code_judge.code_judge_checker` (imported on first lookup, so importing
  the checkers stays cheap).  Neither can be registered by users.
* ARE's three default per-tool tables (argument checkers, soft checkers, in-context criteria
  tools) are read from ``pytest_are_judge/data/tool_registry.json`` and expanded with ARE's
  alias rules (docs/are-differences.md, registry aliases): tool aliases first (copy, overwriting), then app aliases (every
  ``App__fn`` key, including those added by tool aliases, is copied to ``Alias__fn``).  The
  ``SandBoxLocalFileSystem__makedirs`` typo alias is kept, so there is no ``Files__makedirs``
  (docs/are-differences.md, event preprocessing).  Unlike ARE, alias keys do not share one mutable value object: loaders return
  fresh copies of a cached, read-only expansion.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from ..errors import UnknownCheckerError
from . import _hard
from ._types import CheckerType, SoftCheckerType

__all__ = [
    "CheckerKind",
    "UnknownCheckerError",
    "checker_kind",
    "get_checker",
    "known_checkers",
    "load_criteria_tools",
    "load_soft_registry",
    "load_tool_registry",
    "register_checker",
]

CheckerKind = Literal["hard", "scripted"]
CheckerFunc = Callable[..., bool]
_V = TypeVar("_V")


@dataclass(frozen=True)
class _Entry:
    func: CheckerFunc
    kind: CheckerKind


_CHECKERS: dict[str, _Entry] = {}


def _name(name: str) -> str:
    if isinstance(name, enum.Enum):
        name = name.value
    if not isinstance(name, str) or not name:
        raise TypeError(f"a checker name must be a non-empty str, got {name!r}")
    return name


def register_checker(name: str, func: CheckerFunc, kind: CheckerKind = "hard") -> CheckerFunc:
    """Register (or replace) the checker function called ``name``; returns ``func``.

    A ``"hard"`` checker is called as ``func(agent_value, oracle_value, **kwargs)``, a
    ``"scripted"`` one as ``func(agent_value, **checker_args)``.  A :class:`CheckerType` name
    must keep its own kind, and ``llm_checker``/``code_judge`` cannot be registered.
    """
    key = _name(name)
    if kind not in ("hard", "scripted"):
        raise ValueError(f"checker kind must be 'hard' or 'scripted', got {kind!r}")
    if not callable(func):
        raise TypeError(f"checker {key!r} must be callable, got {func!r}")
    if key in CheckerType.__members__:
        member = CheckerType(key)
        builtin_kind = "hard" if member.is_hard() else "scripted" if member.is_scripted() else None
        if builtin_kind is None:
            raise ValueError(f"{key!r} is not a per-argument hard or scripted checker")
        if builtin_kind != kind:
            raise ValueError(f"{key!r} is a {builtin_kind} checker, not {kind}")
    _CHECKERS[key] = _Entry(func, kind)
    return func


_LAZY = {CheckerType.code_judge.value: ("pytest_are_judge.code_judge", "code_judge_checker", "hard")}
"""Built-in checkers whose module is imported on first lookup."""


def known_checkers() -> list[str]:
    """Names of all registered checker functions, in registration order (lazy built-ins last)."""
    return list(_CHECKERS) + [k for k in _LAZY if k not in _CHECKERS]


def _entry(name: str) -> _Entry:
    entry = _CHECKERS.get(name) if type(name) is str else None  # the hot path: a plain name
    if entry is not None:
        return entry
    key = _name(name)
    entry = _CHECKERS.get(key)
    if entry is not None:
        return entry
    lazy = _LAZY.get(key)
    if lazy is not None:
        import importlib

        module, attr, kind = lazy
        entry = _CHECKERS[key] = _Entry(getattr(importlib.import_module(module), attr), kind)  # type: ignore[arg-type]
        return entry
    raise UnknownCheckerError(key, known_checkers())


def get_checker(name: str) -> CheckerFunc:
    """The function registered as ``name``; raises :class:`UnknownCheckerError`."""
    return _entry(name).func


def checker_kind(name: str) -> CheckerKind:
    """``"hard"`` or ``"scripted"``; raises :class:`UnknownCheckerError`."""
    return _entry(name).kind


def resolve_checker(name: str) -> tuple[CheckerFunc, CheckerKind]:
    """``(function, kind)`` of the checker ``name`` in one lookup; raises :class:`UnknownCheckerError`."""
    entry = _entry(name)
    return entry.func, entry.kind


for _member, _func in (
    (CheckerType.eq_checker, _hard.eq_checker),
    (CheckerType.unordered_list_checker, _hard.unordered_list_checker),
    (CheckerType.list_attendees_checker, _hard.list_attendees_checker),
    (CheckerType.datetime_checker, _hard.datetime_checker),
    (CheckerType.phone_number_checker, _hard.phone_number_checker),
    (CheckerType.eq_str_strip_checker, _hard.eq_str_strip_checker),
    (CheckerType.path_checker, _hard.path_checker),
    (CheckerType.unordered_path_list_checker, _hard.unordered_path_list_checker),
):
    register_checker(_member, _func, "hard")
register_checker(CheckerType.contain_any_checker, _hard.contain_any_checker, "scripted")
register_checker(CheckerType.contain_all_checker, _hard.contain_all_checker, "scripted")


# --- default per-tool registries -----------------------------------------------------------


def _without_comments(d: Mapping[str, _V]) -> dict[str, _V]:
    return {k: v for k, v in d.items() if not k.startswith("$")}


@functools.cache
def _data() -> Mapping[str, Any]:
    path = resources.files("pytest_are_judge") / "data" / "tool_registry.json"
    data: Mapping[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _expand_aliases(
    base: Mapping[str, _V],
    tool_aliases: Mapping[str, list[str]],
    app_aliases: Mapping[str, list[str]],
) -> dict[str, _V]:
    """ARE's two-pass alias expansion: tool aliases, then app aliases."""
    out = dict(base)
    for original, aliases in tool_aliases.items():
        if original not in out:
            raise ValueError(f"tool alias source {original!r} is not in the registry")
        for alias in aliases:
            out[alias] = out[original]
    for original_app, alias_apps in app_aliases.items():
        for alias_app in alias_apps:
            for key in list(out):
                app, sep, function = key.partition("__")
                if sep and app == original_app:
                    out[f"{alias_app}__{function}"] = out[key]
    return out


def _app_aliases() -> dict[str, list[str]]:
    return _without_comments(_data()["app_aliases"])


@functools.cache
def _frozen_tool_registry() -> Mapping[str, Mapping[str, CheckerType]]:
    data = _data()
    base = {
        tool: MappingProxyType({arg: CheckerType(c) for arg, c in args.items()})
        for tool, args in _without_comments(data["tools"]).items()
    }
    expanded = _expand_aliases(base, _without_comments(data["tool_aliases"]), _app_aliases())
    return MappingProxyType(expanded)


@functools.cache
def _frozen_soft_registry() -> Mapping[str, tuple[SoftCheckerType, ...]]:
    soft = _data()["soft"]
    base = {tool: tuple(SoftCheckerType(c) for c in names) for tool, names in _without_comments(soft["tools"]).items()}
    expanded = _expand_aliases(base, _without_comments(soft["tool_aliases"]), _app_aliases())
    return MappingProxyType(expanded)


@functools.cache
def _criteria_tools() -> tuple[str, ...]:
    criteria = _data()["criteria"]
    base = dict.fromkeys(criteria["tools"], True)
    tool_aliases = _without_comments(criteria["tool_aliases"])
    return tuple(_expand_aliases(base, tool_aliases, _app_aliases()))


def load_tool_registry() -> dict[str, dict[str, CheckerType]]:
    """ARE's default ``tool -> {arg: CheckerType}`` registry with aliases (89 keys).

    Arguments are in checking order.  Each call returns a fresh copy.
    """
    return {tool: dict(args) for tool, args in _frozen_tool_registry().items()}


def load_soft_registry() -> dict[str, list[SoftCheckerType]]:
    """ARE's default ``tool -> [SoftCheckerType, ...]`` registry with aliases (27 keys).

    Checkers are in running order.  Each call returns a fresh copy.
    """
    return {tool: list(names) for tool, names in _frozen_soft_registry().items()}


def load_criteria_tools() -> list[str]:
    """The 27 tool keys of ARE's in-context criteria registry, in ARE's order."""
    return list(_criteria_tools())
