"""String normalisation used by the attendee checker and the soft judge's equality pre-check.

Reproduces ARE's ``normalize_str``/``normalize_arg``: lowercase, Unicode NFD with
combining marks (category ``Mn``) removed, every ASCII punctuation character removed, outer
whitespace stripped.  Inner whitespace is *not* collapsed and non-ASCII punctuation is kept.
"""

from __future__ import annotations

import string
import unicodedata
from typing import Any

__all__ = ["normalize_arg", "normalize_str"]

_DROP_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_str(s: str) -> str:
    """Normalise one string the way ARE does.  Raises ``TypeError`` for a non-str."""
    if not isinstance(s, str):
        raise TypeError(f"normalize_str expects a str, got {type(s).__name__}")
    decomposed = unicodedata.normalize("NFD", s.lower())
    without_marks = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return without_marks.translate(_DROP_PUNCTUATION).strip()


def normalize_arg(x: Any) -> str:
    """``normalize_str(str(x))``: any value, compared through its ``str()``."""
    return normalize_str(str(x))
