"""The tools of ARE 1.2.0's apps: parameters in signature order with their defaults, and each
tool's operation type, from ``data/tool_signatures.json`` (regenerated from an installed ARE by
``tools/are_signatures.py``; ARE itself is never imported).

Used where an oracle run is derived from a scenario definition (ARE's simulation fills every
argument the definition omits, in signature order) and where a tool is looked up (lint,
did-you-mean).
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["Param", "Signature", "app_tools", "known_app", "signature", "suggest_tool"]

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: Any = _NO_DEFAULT

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT


@dataclass(frozen=True)
class Signature:
    app: str
    function: str
    params: tuple[Param, ...]
    operation_type: str | None
    """``READ`` / ``WRITE`` as ARE declares it (None when ARE declares none)."""

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def with_defaults(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """``args`` completed as ARE's simulation records a call: every parameter in signature
        order, a default for each one not given; unknown arguments are kept at the end."""
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in args:
                out[p.name] = args[p.name]
            elif p.has_default:
                out[p.name] = p.default
        for k, v in args.items():
            out.setdefault(k, v)
        return out


@functools.cache
def _apps() -> Mapping[str, Mapping[str, Signature]]:
    path = resources.files("pytest_are_judge") / "data" / "tool_signatures.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, dict[str, Signature]] = {}
    for app, tools in data["apps"].items():
        out[app] = {}
        for fn, spec in tools.items():
            params = tuple(
                Param(p["name"], p.get("type", "Any"), p["default"])
                if "default" in p
                else Param(p["name"], p.get("type", "Any"))
                for p in spec["params"]
            )
            op = spec.get("operation_type")
            out[app][fn] = Signature(app, fn, params, op.upper() if isinstance(op, str) else None)
    return out


def known_app(app: str | None) -> bool:
    return bool(app) and app in _apps()


def app_tools(app: str) -> list[str]:
    return sorted(_apps().get(app, {}))


def signature(app: str | None, function: str | None) -> Signature | None:
    """The signature of ``app.function`` (``app`` is the app *class*), or None when unknown."""
    if not app or not function:
        return None
    return _apps().get(app, {}).get(function)


def suggest_tool(app: str, function: str) -> list[str]:
    """Close matches for a misspelt tool of a known app (``send_emial`` -> ``send_email``)."""
    return difflib.get_close_matches(function, app_tools(app), n=3, cutoff=0.6)
