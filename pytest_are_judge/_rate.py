"""Gate thresholds and rates (pass rate, pass^k): parsed from ``0.9`` or ``90%``, shown as ``90.0%``."""

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


def format_rate(value: float | None) -> str:
    """``0.9`` -> ``"90.0%"``; None (nothing to measure) -> ``"n/a"``."""
    return "n/a" if value is None else f"{100 * value:.1f}%"
