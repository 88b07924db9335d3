"""pytest-are-judge: judge AI-agent runs against ARE-style oracle scenarios.

The public API is re-exported lazily (PEP 562) so that importing the package, as pytest does
for the plugin entry point, costs almost nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # model
    "Event": "model",
    "EventType": "model",
    "OperationType": "model",
    "OracleEvent": "model",
    "Run": "model",
    "Scenario": "model",
    "TimeComparator": "model",
    "ToolCall": "model",
    "UserDetails": "model",
    # errors
    "AreJudgeError": "errors",
    "InputError": "errors",
    "UsageError": "errors",
    "JudgeUnavailableError": "errors",
    # checkers
    "CheckerType": "checkers",
    "SoftCheckerType": "checkers",
    "register_checker": "checkers",
    # judge
    "GraphPerEventJudge": "judge",
    "GraphPerEventJudgeConfig": "judge",
    "InContextJudge": "judge.in_context",
    "InContextJudgeConfig": "judge",
    "JudgeFactory": "judge",
    "JudgeSession": "judge",
    "ScriptedGraphPerEventJudge": "judge",
    "ScriptedGraphPerEventJudgeConfig": "judge",
    "ToolCheckerParam": "judge",
    "load_config": "pipeline",
    # judgment
    "Judgment": "judgment",
    "JudgmentError": "errors",
    "Failure": "judgment",
    "FailureKind": "judgment",
    "ToolCallCountsFailure": "judgment",
    "EventComparisonFailure": "judgment",
    "EventComparisonFailureType": "judgment",
    "OracleEventMatchingFailure": "judgment",
    "EnvOracleMatchingFailure": "judgment",
    "InputErrorFailure": "judgment",
    # readers and helpers
    "load_runs": "readers",
    "load_file": "readers",
    "load_run_file": "readers",
    "Pipeline": "pipeline",
    "judge_run": "api",
    "judge_path": "api",
    "assert_judged": "api",
    "Recorder": "recorder",
    "lint_paths": "lint",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'pytest_are_judge' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
