"""Repo-wide test helpers (kept tiny): run pytester sessions with and without xdist."""

from __future__ import annotations

import os

# Before any test module imports litellm: its bundled model cost map, never a download (the
# tests make no outside connections), and no .env loading.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

import pytest

# In-process pytester runs restore sys.modules after each inner session, dropping the modules
# that session imported; a later session would then mix two generations of e.g. PyYAML's node
# classes.  Importing the judge's modules here keeps one generation (and saves re-imports).
import yaml  # noqa: F401

import pytest_are_judge._yaml
import pytest_are_judge.api
import pytest_are_judge.readers  # noqa: F401


@pytest.fixture
def run_pytest(pytester: pytest.Pytester):
    """``run_pytest(*args)``: an in-process pytest run (xdist parity lives in tests/test_xdist.py)."""

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest_inprocess(
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "no:xdist",
            "-W",
            "ignore::pytest.PytestAssertRewriteWarning",
            *args,
        )

    run.workers = 0  # type: ignore[attr-defined]
    return run


@pytest.fixture(autouse=True)
def _no_github_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run on GitHub Actions must not append their inner sessions to the job's step
    summary (tests that check it set their own ``GITHUB_STEP_SUMMARY``)."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
