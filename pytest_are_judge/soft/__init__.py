"""LLM (soft) judging: ARE's soft tool checks and in-context judge, via litellm.

Nothing here imports litellm at import time or when a judge is built; the first model call
does.  Entry points used by the rest of the package:

* :func:`build_soft_judge` -- the :class:`~pytest_are_judge.soft.api.SoftJudge` for a
  :class:`~pytest_are_judge.judge.config.GraphPerEventJudgeConfig`;
* :func:`usage_totals` -- process-wide calls, cache hits, tokens, cost and errors.

See ``docs/llm.md``.
"""

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "VerdictCache": "cache",
    "cache_key": "cache",
    "CHECKERS": "checkers",
    "SoftContext": "checkers",
    "MildToolJudge": "judge",
    "SoftToolJudge": "judge",
    "build_soft_judge": "judge",
    "DEFAULT_JUDGE_MODEL": "options",
    "DEFAULT_JUDGE_PROVIDER": "options",
    "ModelSettings": "options",
    "SoftOptions": "options",
    "parse_options": "options",
    "resolve_model": "options",
    "parse_markers": "parsing",
    "parse_subtask": "parsing",
    "PROMPT_SERIES": "prompts",
    "escape": "prompts",
    "prompt_version": "prompts",
    "merge_usage": "usage",
    "reset_usage": "usage",
    "usage_totals": "usage",
}

__all__ = sorted([*_EXPORTS, "PROMPT_VERSION"])


def __getattr__(name: str) -> Any:
    # lazy (PEP 562): the engine imports ``soft.api`` without loading the LLM machinery;
    # PROMPT_VERSION is computed from the prompt files on first use
    if name == "PROMPT_VERSION":
        from .prompts import prompt_version

        return prompt_version()
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value
    return value
