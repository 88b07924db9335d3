"""``JudgeFactory()(config)`` returns the judge that fits the config (ARE's API)."""

from __future__ import annotations

from typing import Any

from .config import GraphPerEventJudgeConfig, InContextJudgeConfig, ScriptedGraphPerEventJudgeConfig
from .engine import GraphPerEventJudge


class ScriptedGraphPerEventJudge(GraphPerEventJudge):
    """Graph judge with per-event checker params and no LLM."""

    def __init__(self, config: ScriptedGraphPerEventJudgeConfig | None = None, **kw: Any) -> None:
        super().__init__(config or ScriptedGraphPerEventJudgeConfig(), **kw)


class JudgeFactory:
    def __call__(self, config: Any = None, **kw: Any) -> Any:
        if config is None:
            return GraphPerEventJudge(GraphPerEventJudgeConfig(), **kw)
        if isinstance(config, InContextJudgeConfig):
            from .in_context import InContextJudge  # lazy: LLM machinery only when asked for

            return InContextJudge(config, **kw)
        if isinstance(config, ScriptedGraphPerEventJudgeConfig):
            return ScriptedGraphPerEventJudge(config, **kw)
        if isinstance(config, GraphPerEventJudgeConfig):
            return GraphPerEventJudge(config, **kw)
        raise TypeError(f"no judge for config of type {type(config).__name__}")
