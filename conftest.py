"""Repo-wide test helpers (kept tiny): run pytester sessions with and without xdist."""

from __future__ import annotations

import pytest


@pytest.fixture(params=[0, 2], ids=["n0", "n2"])
def run_pytest(request: pytest.FixtureRequest, pytester: pytest.Pytester):
    """``run_pytest(*args)``: a subprocess pytest run, with ``-n 0`` and with ``-n 2``."""
    workers = request.param

    def run(*args: str) -> pytest.RunResult:
        extra = ["-n", str(workers)] if workers else ["-p", "no:xdist"]
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", *extra, *args)

    run.workers = workers  # type: ignore[attr-defined]
    return run
