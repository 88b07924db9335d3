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
from .judging import judge
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

    def _run(self, agent: Run | Iterable[Event] | str | Path, oracle: Scenario | str | Path | None) -> Run:
        __tracebackhide__ = True
        if isinstance(agent, Run):
            return agent
        if isinstance(agent, (str, Path)):
            return load_run(
                self._pytest_config,
                Path(str(self._node.path)).parent,
                agent,
                None,
                oracle if isinstance(oracle, (str, Path)) else None,
            )
        if not isinstance(oracle, Scenario):
            raise TypeError("are_judge(events, oracle): oracle must be a Scenario when agent is a list of events")
        return Run(scenario=oracle, events=list(agent))

    def judge(self, agent: Run | Iterable[Event] | str | Path, oracle: Scenario | str | Path | None = None) -> Judgment:
        """Judge ``agent`` (a Run, events + scenario, or a trace/scenario path); never raises on a verdict."""
        __tracebackhide__ = True
        run = self._run(agent, oracle)
        return judge(self._pytest_config, run, item=self._node, overrides=self.overrides or None, base=self._base)

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


def _resolve(config: pytest.Config, base: Path, path: str | Path) -> Path:
    p = Path(path)
    if p.is_absolute():
        return p
    for root in (base, config.rootpath, config.invocation_params.dir):
        if (root / p).exists():
            return root / p
    return base / p


def load_run(config: pytest.Config, base: Path, path: str | Path, run: str | None, oracle: str | Path | None) -> Run:
    """One run of a scenario/trace file (an ARE trace takes a sibling oracle-run trace)."""
    __tracebackhide__ = True
    from ..readers import load_runs
    from .collection import ScenarioIndex

    p = _resolve(config, base, path)
    try:
        if oracle is not None:
            runs, errors = load_runs([p], oracle_path=_resolve(config, base, oracle))
            if errors:
                raise errors[0]
        else:
            if not p.is_file():
                raise InputError("no such scenario file", file=str(p))
            runs = ScenarioIndex([p.parent]).runs(p)
        if run is not None:
            chosen = [r for r in runs if r.run_id == run]
            if not chosen:
                raise InputError(
                    f"no run {run!r}; runs: {', '.join(r.run_id for r in runs) or 'none'}", file=str(p), field="run"
                )
            return chosen[0]
        if len(runs) != 1:
            raise InputError(
                f"expected exactly one run, found {len(runs)}"
                + (f" ({', '.join(r.run_id for r in runs)}): pass run=..." if runs else ""),
                file=str(p),
            )
        return runs[0]
    except InputError as exc:
        _fail(exc)
        raise  # pragma: no cover


def oracle_side(scenario: Scenario) -> list[Event]:
    if scenario.oracle_run is not None:
        return list(scenario.oracle_run)
    from ..checkers import load_tool_registry
    from ..judge.oracle import derive_oracle_run

    return derive_oracle_run(scenario, frozenset(load_tool_registry()))
