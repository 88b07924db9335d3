"""Parsing gate thresholds (pass rate, pass^k): a number in 0..1 or a percentage like ``90%``."""

from __future__ import annotations


def parse_rate(raw: object) -> float:
    """``"0.9"``, ``0.9`` or ``"90%"`` -> 0.9; ValueError with a readable message otherwise."""
    text = str(raw).strip()
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise ValueError(f"expected a number in 0..1 or a percentage, got {raw!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"must be between 0 and 1 (or 0%..100%), got {raw!r}")
    return value
