"""Judging inside pytest: the shared :class:`~pytest_are_judge.pipeline.Pipeline` with the
session config and this plugin's hooks (``adjust_config``, ``judgment``) plugged in."""

from __future__ import annotations

from typing import Any

import pytest

from ..judge.config import GraphPerEventJudgeConfig
from ..judgment.result import Judgment
from ..model import Run, Scenario
from ..pipeline import Pipeline
from .settings import ensure_checkers, session_config

_PIPELINES_KEY = pytest.StashKey[dict[int, Pipeline]]()


def adjust_config(config: pytest.Config, scenario: Scenario, cfg: GraphPerEventJudgeConfig) -> GraphPerEventJudgeConfig:
    """Apply ``pytest_are_judge_adjust_config`` results (mapping or config) to ``cfg``."""
    from ..judge.config import config_from_mapping

    for res in config.hook.pytest_are_judge_adjust_config(scenario=scenario, config=cfg):
        if res is None:
            continue
        if isinstance(res, GraphPerEventJudgeConfig):
            cfg = res
        elif isinstance(res, dict):
            cfg = config_from_mapping(res, source="pytest_are_judge_adjust_config", base=cfg)
        else:
            raise TypeError(
                f"pytest_are_judge_adjust_config must return None, a mapping or a config, got {type(res).__name__}"
            )
    return cfg


def pipeline(config: pytest.Config, base: GraphPerEventJudgeConfig | None = None) -> Pipeline:
    """The pipeline judging with ``base`` (default: the session config), one per base config."""
    ensure_checkers(config)
    base = base if base is not None else session_config(config)
    pipelines = config.stash.setdefault(_PIPELINES_KEY, {})
    found = pipelines.get(id(base))
    if found is None or found.base is not base:
        hooked = bool(config.hook.pytest_are_judge_adjust_config.get_hookimpls())
        found = pipelines[id(base)] = Pipeline(
            base, adjust=(lambda scenario, cfg: adjust_config(config, scenario, cfg)) if hooked else None
        )
    return found


def judge_with_config(
    config: pytest.Config,
    run: Run,
    *,
    item: pytest.Item | None = None,
    overrides: dict[str, Any] | None = None,
    base: GraphPerEventJudgeConfig | None = None,
) -> tuple[Judgment, GraphPerEventJudgeConfig | None]:
    """Judge ``run`` (bad input becomes an error judgment), calling the judgment hook for ``item``;
    also returns the config the judge used (None when it could not be built)."""
    judgment, cfg = pipeline(config, base).judge(run, overrides)
    if item is not None:
        config.hook.pytest_are_judge_judgment(item=item, run=run, judgment=judgment)
    return judgment, cfg
