"""``--are-hf``: oracle scenarios from a Hugging Face dataset, loaded once per process.

Every process that collects (the only one with ``-n 0``; the controller *and* each xdist
worker otherwise) loads the dataset itself and keeps it in the config stash.  The controller
loads it in ``pytest_configure`` too, so a missing dataset, split, column or ``datasets``
package is one clean usage error before any worker starts.
"""

from __future__ import annotations

from typing import Any

import pytest

from .settings import settings

_HF_KEY = pytest.StashKey[dict[str, list[dict[str, Any]]]]()


def hf_scenarios(config: pytest.Config) -> dict[str, list[dict[str, Any]]] | None:
    """``{scenario_id: [ARE export, ...]}`` of ``--are-hf`` (None without it); a usage error if unreadable."""
    s = settings(config)
    if not s.hf:
        return None
    cached = config.stash.get(_HF_KEY, None)
    if cached is not None:
        return cached
    from ..errors import InputError
    from ..readers.hf import load_hf_scenarios

    try:
        scenarios = load_hf_scenarios(s.hf, split=s.hf_split, config=s.hf_config)
    except InputError as exc:
        raise pytest.UsageError(f"{s.name('hf')}: {exc}") from None
    config.stash[_HF_KEY] = scenarios
    return scenarios
