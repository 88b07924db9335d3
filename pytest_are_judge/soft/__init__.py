"""LLM (soft) judging: ARE's soft tool checks and in-context judge, via litellm.

Nothing here imports litellm at import time or when a judge is built; the first model call
does.  Entry points used by the rest of the package:

* :func:`build_soft_judge` -- the :class:`~pytest_are_judge.judge.soft_api.SoftJudge` for a
  :class:`~pytest_are_judge.judge.config.GraphPerEventJudgeConfig`;
* :class:`InContextJudge` -- whole-trace judging for an ``InContextJudgeConfig``;
* :func:`usage_totals` -- process-wide calls, cache hits, tokens, cost and errors.

See ``docs/llm.md``.
"""

from .cache import VerdictCache, cache_key
from .checkers import CHECKERS, SoftContext
from .in_context import InContextJudge
from .judge import MildToolJudge, SoftToolJudge, build_soft_judge
from .options import (
    DEFAULT_JUDGE_MODEL,
    DEFAULT_JUDGE_PROVIDER,
    ModelSettings,
    SoftOptions,
    parse_options,
    resolve_model,
)
from .parsing import parse_markers, parse_subtask, parse_verdict
from .prompts import PROMPT_SERIES, escape, prompt_version
from .usage import merge_usage, reset_usage, usage_totals


def __getattr__(name: str):  # PROMPT_VERSION is computed from the prompt files on first use
    if name == "PROMPT_VERSION":
        return prompt_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CHECKERS",
    "DEFAULT_JUDGE_MODEL",
    "DEFAULT_JUDGE_PROVIDER",
    "PROMPT_SERIES",
    "PROMPT_VERSION",
    "InContextJudge",
    "MildToolJudge",
    "ModelSettings",
    "SoftContext",
    "SoftOptions",
    "SoftToolJudge",
    "VerdictCache",
    "build_soft_judge",
    "cache_key",
    "escape",
    "merge_usage",
    "parse_markers",
    "parse_options",
    "parse_subtask",
    "parse_verdict",
    "prompt_version",
    "reset_usage",
    "resolve_model",
    "usage_totals",
]
