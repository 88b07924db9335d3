"""Convenience entry points: judge a path, judge events, assert a judgment."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import InputError
from .judge.config import GraphPerEventJudgeConfig, config_from_mapping
from .judge.engine import GraphPerEventJudge
from .judgment.result import Judgment
from .model import Event, Run, Scenario


def judge_for(config: GraphPerEventJudgeConfig | dict[str, Any] | None = None, **overrides: Any) -> GraphPerEventJudge:
    """A judge from a config object, a mapping, or keyword overrides."""
    if isinstance(config, GraphPerEventJudgeConfig):
        cfg = config.merged(**overrides) if overrides else config
    else:
        cfg = config_from_mapping({**(config or {}), **overrides})
    return GraphPerEventJudge(cfg)


def effective_config(base: GraphPerEventJudgeConfig | None, scenario: Scenario) -> GraphPerEventJudgeConfig:
    """The session config with the scenario file's own ``judge_config`` applied over it."""
    if not scenario.judge_config:
        return base or GraphPerEventJudgeConfig()
    return config_from_mapping(scenario.judge_config, source=scenario.source, base=base)


def judge_run(
    run: Run, config: GraphPerEventJudgeConfig | None = None, *, judge: GraphPerEventJudge | None = None
) -> Judgment:
    """Judge one run, honouring its scenario's own settings."""
    try:
        cfg = effective_config(config if judge is None else judge.config, run.scenario)
    except InputError as exc:
        return Judgment(
            success=False,
            failure=exc.to_failure(),
            scenario_id=run.scenario.scenario_id,
            run_id=run.run_id,
            source=run.source,
        )
    if judge is None or cfg is not judge.config:
        judge = GraphPerEventJudge(cfg, soft_judge=judge._soft_judge if judge is not None else None)
    judgment = judge.judge_run(run)
    if cfg.evaluators:
        from .evaluators import run_evaluators

        judgment = run_evaluators(run, judgment, cfg)
    return judgment


def judge_path(
    *paths: str | Path,
    oracle: str | Path | None = None,
    config: GraphPerEventJudgeConfig | dict[str, Any] | None = None,
    **overrides: Any,
) -> list[Judgment]:
    """Judge every run found under ``paths``; unreadable files become input-error judgments."""
    from .readers import load_runs

    judge = judge_for(config, **overrides)
    runs, errors = load_runs(list(paths), oracle_path=oracle)
    out = [judge_run(r, judge=judge) for r in runs]
    for exc in errors:
        out.append(
            Judgment(
                success=False,
                failure=exc.to_failure(),
                scenario_id="",
                run_id=Path(exc.file or "?").stem,
                source=exc.file,
            )
        )
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
    judge = judge_for(None, **config)
    if isinstance(agent, Run):
        run = agent
    elif isinstance(agent, (str, Path)):
        from .readers import load_runs

        runs, errors = load_runs([agent], oracle_path=oracle if isinstance(oracle, (str, Path)) else None)
        if errors:
            raise errors[0]
        if len(runs) != 1:
            raise InputError(f"expected exactly one run, found {len(runs)}", file=str(agent))
        run = runs[0]
    else:
        if not isinstance(oracle, Scenario):
            raise TypeError("assert_judged(events, oracle): oracle must be a Scenario when agent is a list of events")
        run = Run(scenario=oracle, events=list(agent))
    judgment = judge_run(run, judge=judge)
    judgment.assert_success()
    return judgment
