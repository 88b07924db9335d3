"""Repo-wide test helpers (kept tiny): run pytester sessions with and without xdist."""

from __future__ import annotations

import os

# Before any test module imports litellm: its bundled model cost map, never a download (the
# tests make no outside connections), and no .env loading.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

import pytest  # noqa: E402


@pytest.fixture(params=[0, 2], ids=["n0", "n2"])
def run_pytest(request: pytest.FixtureRequest, pytester: pytest.Pytester):
    """``run_pytest(*args)``: a subprocess pytest run, with ``-n 0`` and with ``-n 2``."""
    workers = request.param

    def run(*args: str) -> pytest.RunResult:
        extra = ["-n", str(workers)] if workers else ["-p", "no:xdist"]
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", *extra, *args)

    run.workers = workers  # type: ignore[attr-defined]
    return run


@pytest.fixture(autouse=True)
def _no_github_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run on GitHub Actions must not append their inner sessions to the job's step
    summary (tests that check it set their own ``GITHUB_STEP_SUMMARY``)."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
