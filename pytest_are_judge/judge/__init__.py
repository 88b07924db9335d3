"""The matching engine: turns, time and causality rules, greedy and exact matching.
No pytest and no I/O here."""

from .config import (
    GraphPerEventJudgeConfig,
    InContextJudgeConfig,
    ScriptedGraphPerEventJudgeConfig,
    ToolCheckerParam,
    config_from_mapping,
)
from .engine import GraphPerEventJudge, JudgeSession
from .factory import JudgeFactory, ScriptedGraphPerEventJudge

__all__ = [
    "GraphPerEventJudge",
    "GraphPerEventJudgeConfig",
    "InContextJudgeConfig",
    "JudgeFactory",
    "JudgeSession",
    "ScriptedGraphPerEventJudge",
    "ScriptedGraphPerEventJudgeConfig",
    "ToolCheckerParam",
    "config_from_mapping",
]
