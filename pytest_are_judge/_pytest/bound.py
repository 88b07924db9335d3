"""The objects behind the fixtures: a judge bound to one test, and run loading."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from ..errors import InputError
from ..judge.config import GraphPerEventJudgeConfig, config_from_mapping
from ..judgment.result import Judgment
from ..model import Event, Run, Scenario
from ..pipeline import coerce_run
from .judging import judge_with_config
from .settings import session_config


def _fail(exc: InputError) -> None:
    __tracebackhide__ = True
    pytest.fail(str(exc), pytrace=False)


class BoundJudge:
    """A judge for one test: session config, then ``judge_config`` fixture, then markers."""

    def __init__(
        self, config: pytest.Config, node: pytest.Item, overrides: dict[str, Any], base: GraphPerEventJudgeConfig
    ) -> None:
        self._pytest_config = config
        self._node = node
        self.overrides = dict(overrides)
        self.config = (
            config_from_mapping(self.overrides, source="judge_config fixture/marker", base=base) if overrides else base
        )
        self._base = base

    @classmethod
    def create(cls, config: pytest.Config, node: pytest.Item, overrides: dict[str, Any]) -> BoundJudge:
        __tracebackhide__ = True
        try:
            return cls(config, node, overrides, session_config(config))
        except InputError as exc:
            _fail(exc)
            raise  # pragma: no cover

    @property
    def engine(self) -> Any:
        from ..judge.engine import GraphPerEventJudge

        return GraphPerEventJudge(self.config)

    def judge(self, agent: Run | Iterable[Event] | str | Path, oracle: Scenario | str | Path | None = None) -> Judgment:
        """Judge ``agent`` (a Run, events + scenario, or a trace/scenario path); never raises on a verdict."""
        __tracebackhide__ = True
        run = load_run(self._pytest_config, Path(str(self._node.path)).parent, agent, None, oracle)
        return judge_with_config(
            self._pytest_config, run, item=self._node, overrides=self.overrides or None, base=self._base
        )[0]

    __call__ = judge

    def assert_judged(
        self, agent: Run | Iterable[Event] | str | Path, oracle: Scenario | str | Path | None = None
    ) -> Judgment:
        """Judge and raise :class:`JudgmentError` (reported as the rich rendering) unless it passes."""
        __tracebackhide__ = True
        judgment = self.judge(agent, oracle)
        if judgment.is_error:
            pytest.fail(judgment.render(), pytrace=False)
        return judgment.assert_success()


def _resolver(config: pytest.Config, base: Path) -> Any:
    """Relative paths: the test file's folder, then the rootdir, then the invocation folder."""

    def resolve(path: str | Path) -> Path:
        p = Path(path)
        if p.is_absolute():
            return p
        for root in (base, config.rootpath, config.invocation_params.dir):
            if (root / p).exists():
                return root / p
        return base / p

    return resolve


def load_run(
    config: pytest.Config,
    base: Path,
    agent: Run | Iterable[Event] | str | Path,
    run: str | None,
    oracle: Scenario | str | Path | None,
) -> Run:
    """The run meant by ``agent`` (see :func:`~pytest_are_judge.pipeline.coerce_run`); bad input
    fails the test with the input error's text."""
    __tracebackhide__ = True
    try:
        return coerce_run(agent, oracle, run=run, resolve=_resolver(config, base))
    except InputError as exc:
        _fail(exc)
        raise  # pragma: no cover


def oracle_side(scenario: Scenario) -> list[Event]:
    if scenario.oracle_run is not None:
        return list(scenario.oracle_run)
    from ..checkers import load_tool_registry
    from ..judge.oracle import derive_oracle_run

    return derive_oracle_run(scenario, frozenset(load_tool_registry()))
