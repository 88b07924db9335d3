"""Process-wide LLM usage accumulator (the plugin sums it over xdist workers)."""

from __future__ import annotations

import threading
from typing import Any

_KEYS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost_usd", "errors")
_lock = threading.Lock()
_totals: dict[str, Any] = {k: 0 for k in _KEYS}
_totals["cost_usd"] = 0.0


def record(**deltas: float) -> None:
    with _lock:
        for k, v in deltas.items():
            if k not in _totals:
                raise KeyError(f"unknown usage counter {k!r}")
            _totals[k] += v


def usage_totals() -> dict[str, Any]:
    """``calls, cache_hits, prompt_tokens, completion_tokens, cost_usd, errors`` so far."""
    with _lock:
        return dict(_totals)


def reset_usage() -> None:
    with _lock:
        for k in _KEYS:
            _totals[k] = 0
        _totals["cost_usd"] = 0.0


def merge_usage(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Sum several ``usage_totals()`` dicts (e.g. one per xdist worker)."""
    out: dict[str, Any] = {k: 0 for k in _KEYS}
    out["cost_usd"] = 0.0
    for it in items:
        for k in _KEYS:
            out[k] += it.get(k, 0) or 0
    return out
