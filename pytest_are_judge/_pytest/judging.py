"""Judging one run inside pytest: config layering, hooks, and a per-process judge cache."""

from __future__ import annotations

from typing import Any

import pytest

from ..api import effective_config
from ..errors import InputError
from ..judge.config import GraphPerEventJudgeConfig, config_from_mapping
from ..judge.engine import GraphPerEventJudge
from ..judgment.result import Judgment
from ..model import Run
from .settings import adjust_config, ensure_checkers, session_config

_JUDGES_KEY = pytest.StashKey[dict[str, GraphPerEventJudge]]()
_SESSION = "<session config>"


def _judge_for(config: pytest.Config, cfg: GraphPerEventJudgeConfig) -> GraphPerEventJudge:
    judges = config.stash.setdefault(_JUDGES_KEY, {})
    if cfg is session_config(config) and not config.hook.pytest_are_judge_adjust_config.get_hookimpls():
        # the session's own config object: built by us, handed to no one but adjust_config hooks
        # (there are none), so it is what it was: no need to serialise it to find its judge
        judge = judges.get(_SESSION)
        if judge is None:
            judge = judges[_SESSION] = GraphPerEventJudge(cfg)
        return judge
    key = f"{type(cfg).__name__}:{cfg.model_dump_json()}"
    judge = judges.get(key)
    if judge is None:
        judge = judges[key] = GraphPerEventJudge(cfg)
    return judge


def config_for_run(
    config: pytest.Config,
    run: Run,
    overrides: dict[str, Any] | None = None,
    *,
    base: GraphPerEventJudgeConfig | None = None,
) -> GraphPerEventJudgeConfig:
    """session config -> scenario file's judge_config -> ``overrides`` -> adjust_config hook."""
    cfg = effective_config(base if base is not None else session_config(config), run.scenario)
    if overrides:
        cfg = config_from_mapping(overrides, source="judge_config fixture/marker", base=cfg)
    return adjust_config(config, run.scenario, cfg)


def judge(
    config: pytest.Config,
    run: Run,
    *,
    item: pytest.Item | None = None,
    overrides: dict[str, Any] | None = None,
    base: GraphPerEventJudgeConfig | None = None,
) -> Judgment:
    """Judge ``run``; bad input becomes an error judgment (never an exception)."""
    return judge_with_config(config, run, item=item, overrides=overrides, base=base)[0]


def judge_with_config(
    config: pytest.Config,
    run: Run,
    *,
    item: pytest.Item | None = None,
    overrides: dict[str, Any] | None = None,
    base: GraphPerEventJudgeConfig | None = None,
) -> tuple[Judgment, GraphPerEventJudgeConfig | None]:
    """:func:`judge`, also returning the config the judge used (None when it could not be built)."""
    ensure_checkers(config)
    cfg: GraphPerEventJudgeConfig | None
    try:
        cfg = config_for_run(config, run, overrides, base=base)
    except InputError as exc:
        cfg = None
        judgment = Judgment(
            success=False,
            failure=exc.to_failure(),
            scenario_id=run.scenario.scenario_id,
            run_id=run.run_id,
            source=run.source,
        )
    else:
        judgment = _judge_for(config, cfg).judge_run(run)
        if getattr(cfg, "evaluators", None):
            # scenario-level evaluators (code judges...), as pytest_are_judge.api.judge_run does
            from ..evaluators import run_evaluators

            judgment = run_evaluators(run, judgment, cfg)
    if item is not None:
        config.hook.pytest_are_judge_judgment(item=item, run=run, judgment=judgment)
    return judgment, cfg
