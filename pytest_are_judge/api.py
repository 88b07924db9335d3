"""Convenience entry points: judge a run, judge a path, assert a judgment (over :mod:`.pipeline`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .judge.config import GraphPerEventJudgeConfig
from .judge.engine import GraphPerEventJudge
from .judgment.result import Judgment
from .model import Event, Run, Scenario
from .pipeline import Pipeline, coerce_run, config_from_overrides, effective_config

__all__ = ["assert_judged", "effective_config", "judge_for", "judge_path", "judge_run"]


def judge_for(config: GraphPerEventJudgeConfig | dict[str, Any] | None = None, **overrides: Any) -> GraphPerEventJudge:
    """A judge from a config object, a mapping, or keyword overrides."""
    return GraphPerEventJudge(config_from_overrides(config, **overrides))


def judge_run(
    run: Run, config: GraphPerEventJudgeConfig | None = None, *, judge: GraphPerEventJudge | None = None
) -> Judgment:
    """Judge one run, honouring its scenario's own settings (``judge_config``, evaluators)."""
    return Pipeline(config, judge=judge).judge_run(run)


def judge_path(
    *paths: str | Path,
    oracle: str | Path | None = None,
    config: GraphPerEventJudgeConfig | dict[str, Any] | None = None,
    **overrides: Any,
) -> list[Judgment]:
    """Judge every run found under ``paths``; unreadable files become input-error judgments."""
    from .readers import load_runs

    pipeline = Pipeline(config_from_overrides(config, **overrides))
    runs, errors = load_runs(list(paths), oracle_path=oracle)
    out = [pipeline.judge_run(r) for r in runs]
    out += [Judgment.for_input_error(exc, run_id=Path(exc.file or "?").stem) for exc in errors]
    return out


def assert_judged(
    agent: Run | Iterable[Event] | str | Path,
    oracle: Scenario | str | Path | None = None,
    **config: Any,
) -> Judgment:
    """Judge ``agent`` against ``oracle`` and raise :class:`JudgmentError` (rich report) unless it passes.

    ``agent`` may be a :class:`Run`, a list of events (then ``oracle`` is the scenario), or a
    path to a trace/scenario file (``oracle`` may then be an oracle-run trace path).
    """
    __tracebackhide__ = True
    run = coerce_run(agent, oracle)
    return Pipeline(config_from_overrides(None, **config)).judge_run(run).assert_success()
