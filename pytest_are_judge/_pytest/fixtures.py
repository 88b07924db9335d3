"""Fixtures of pytest-are-judge.  Only pytest is imported here; the judge loads on first use.

- ``judge_config``: a dict of judge settings; override it in a ``conftest.py``.
- ``are_judge``: a judge built from session config + ``judge_config`` + ``judge_config`` markers.
- ``are_scenario``: the ``(path, run, oracle)`` bound by ``@pytest.mark.are_scenario`` (or by
  parametrising ``are_scenario``); ``load_scenario``: a loader; ``are_run``: the bound run;
  ``agent_events`` / ``oracle_events``: its two sides; ``are_judgment``: its judgment.
- ``are_recorder``: records a live run of the agent, judged when the test body passes.
- ``judgment_snapshot``: syrupy's ``snapshot`` with the judgment extension.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def judge_config() -> dict[str, Any]:
    """Judge settings for a test (override in a conftest.py, like pytest-recording's ``vcr_config``).

    Merged over the session config (``--are-config`` and ``--are-*`` options); the kwargs of
    ``@pytest.mark.judge_config(...)`` markers are merged over it, closest marker last.
    """
    return {}


def marker_overrides(node: pytest.Item) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for mark in reversed(list(node.iter_markers("judge_config"))):
        for arg in mark.args:
            if not isinstance(arg, dict):
                raise pytest.UsageError(
                    f"{node.nodeid}: judge_config marker takes keyword arguments or one dict, got {arg!r}"
                )
            merged.update(arg)
        merged.update(mark.kwargs)
    return merged


@pytest.fixture
def are_judge(request: pytest.FixtureRequest, judge_config: dict[str, Any]) -> Any:
    """A judge for this test: ``are_judge(agent, oracle=None) -> Judgment``,
    ``are_judge.assert_judged(agent, oracle=None)``, ``.config``, ``.engine``."""
    from .bound import BoundJudge

    overrides = {**(judge_config or {}), **marker_overrides(request.node)}
    return BoundJudge.create(request.config, request.node, overrides)


@pytest.fixture
def are_scenario(request: pytest.FixtureRequest) -> Any:
    """What ``@pytest.mark.are_scenario(path, run=..., oracle=...)`` binds (None without a marker).
    Parametrise ``are_scenario`` (values: path, ``(path, run)`` or a dict) to bind several."""
    mark = request.node.get_closest_marker("are_scenario")
    if mark is None:
        return None
    if not mark.args and "path" not in mark.kwargs:
        raise pytest.UsageError(f"{request.node.nodeid}: are_scenario marker needs a path")
    unknown = set(mark.kwargs) - {"path", "run", "oracle", "record"}
    if unknown or len(mark.args) > 2:
        raise pytest.UsageError(
            f"{request.node.nodeid}: are_scenario(path, run=None, oracle=None, record=None) "
            f"got {', '.join(sorted(unknown)) or 'too many positional arguments'}"
        )
    path = mark.args[0] if mark.args else mark.kwargs["path"]
    return {
        "path": path,
        "run": mark.kwargs.get("run", mark.args[1] if len(mark.args) > 1 else None),
        "oracle": mark.kwargs.get("oracle"),
        "record": mark.kwargs.get("record"),
    }


@pytest.fixture
def load_scenario(request: pytest.FixtureRequest, are_scenario: Any) -> Callable[..., Any]:
    """``load_scenario(path=None, run=None, oracle=None) -> Run``.  Paths are relative to the
    test file's folder (then the rootdir).  Without a path, the ``are_scenario`` binding."""
    from .bound import load_run

    base = Path(str(request.node.path)).parent

    def load(path: str | Path | None = None, run: str | None = None, oracle: str | Path | None = None) -> Any:
        __tracebackhide__ = True
        if path is None:
            if are_scenario is None:
                pytest.fail(
                    "load_scenario(): no path given and no @pytest.mark.are_scenario(...) on the test", pytrace=False
                )
            from .helpers import describe_target

            path, bound_run, bound_oracle = describe_target(are_scenario)
            run = run if run is not None else bound_run
            oracle = oracle if oracle is not None else bound_oracle
        return load_run(request.config, base, path, run, oracle)

    return load


@pytest.fixture
def are_run(load_scenario: Callable[..., Any]) -> Any:
    """The :class:`~pytest_are_judge.model.Run` bound by the marker or parametrisation."""
    return load_scenario()


@pytest.fixture
def agent_events(are_run: Any) -> list[Any]:
    """The agent side (completed events) of the bound run."""
    return list(are_run.events)


@pytest.fixture
def oracle_events(are_run: Any) -> list[Any]:
    """The oracle side of the bound run: its oracle run, or the run derived from the scenario."""
    from .bound import oracle_side

    return oracle_side(are_run.scenario)


@pytest.fixture
def are_judgment(are_judge: Any, are_run: Any) -> Any:
    """The judgment of the bound run (with this test's judge config); not asserted."""
    return are_judge(are_run)


@pytest.fixture
def are_recorder(
    request: pytest.FixtureRequest,
    are_scenario: Any,
    judge_config: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> Any:
    """Record a live run of your agent and judge it against the scenario bound by
    ``@pytest.mark.are_scenario(path, record=None)``: a :class:`~pytest_are_judge.Recorder` with
    ``user(text)``, ``tool(name, args, result)``, ``reply(text)`` and the ``record`` decorator for
    the agent's tool functions (sync or async).  When the test body passes, the run is judged with
    this test's judge config and the test fails with the judgment's report if the run does; the
    run is written to ``record`` (relative to the test file: replay it in CI with
    ``runs: [{id: live, file: ...}]``) or to a temporary folder, named in the report.  Assign
    ``are_recorder.clock`` before the first event for deterministic times."""
    from .recording import make_recorder

    overrides = {**(judge_config or {}), **marker_overrides(request.node)}
    return make_recorder(request, are_scenario, overrides, tmp_path_factory)


@pytest.fixture
def judgment_snapshot(request: pytest.FixtureRequest) -> Any:
    """syrupy's ``snapshot`` using :class:`JudgmentSnapshotExtension` (needs ``syrupy``)."""
    try:
        snapshot = request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        pytest.fail("judgment_snapshot needs syrupy: pip install 'pytest-are-judge[test]' (or syrupy)", pytrace=False)
    from .snapshot import JudgmentSnapshotExtension

    return snapshot.use_extension(JudgmentSnapshotExtension)
