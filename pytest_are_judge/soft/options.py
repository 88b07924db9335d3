"""Validated soft-judging options (``llm_options``) and judge-model settings.

Everything here is plain data: nothing opens a network client or imports litellm.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import InputError, format_validation_error

#: ARE's default judge model and provider (``DEFAULT_JUDGE_MODEL`` / ``DEFAULT_JUDGE_PROVIDER``).
DEFAULT_JUDGE_MODEL = "meta-llama/Meta-Llama-3.3-70B-Instruct"
DEFAULT_JUDGE_PROVIDER = "huggingface"

ENV_MODEL = "ARE_JUDGE_MODEL"
ENV_PROVIDER = "ARE_JUDGE_PROVIDER"
ENV_ENDPOINT = "ARE_JUDGE_ENDPOINT"
ENV_API_KEY = "ARE_JUDGE_API_KEY"


class SoftOptions(BaseModel):
    """The keys accepted in ``llm_options`` (unknown keys are an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cache_path: str | None = None
    """JSONL verdict cache file (shared between processes, reusable in CI)."""
    replay_only: bool = False
    """Never call a model: a cache miss is an error (``judge_unavailable``).  Needs ``cache_path``."""
    concurrency: int = Field(default=16, ge=1, le=1024)
    """Maximum number of model calls in flight at once (per process)."""
    max_retries: int = Field(default=3, ge=0, le=20)
    """Extra attempts after a failed call or an answer without a verdict."""
    retry_base_delay: float = Field(default=0.5, ge=0.0)
    """First backoff delay in seconds (doubles per attempt, with jitter)."""
    retry_max_delay: float = Field(default=8.0, ge=0.0)
    timeout: float = Field(default=60.0, gt=0.0)
    """Seconds allowed for one model call."""
    inconclusive_policy: Literal["error", "reject"] = "error"
    """What a tied or all-abstain vote means: an error (default) or a rejection."""
    api_key: str | None = None
    """API key for the judge endpoint (else ``ARE_JUDGE_API_KEY``, else the provider's own env var)."""
    structured: bool = False
    """Ask for a JSON verdict (``response_format`` JSON schema) carrying the call's code."""
    speculate: bool = False
    """Ask ahead, concurrently: the pairs of a turn that greedy matching will most likely try
    (one per oracle event) and every soft checker of a pair at once, so that a turn whose guesses
    are right costs one round-trip.  Verdicts are those of ARE's order (the matcher still decides
    in that order from cached answers, and an error on a call ARE's order never reaches changes
    nothing), at the price of calls ARE would not make when a guess is wrong.  Off: only the
    calls ARE's order needs, one after the other."""
    injection_guard: bool = True
    """Reject agent text that addresses the judge without asking the model (:mod:`.guard`);
    false only if your agents' legitimate texts trip it (the per-call code still applies)."""
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)
    """Sampling temperature (None: the provider's default, as ARE)."""
    max_tokens: int | None = Field(default=None, ge=1)
    memory_cache: bool = True
    """Reuse verdicts of identical prompts within the process (also without ``cache_path``)."""
    soft_checkers: dict[str, list[str]] | None = None
    """Per-tool soft-checker lists merged over ARE's default registry."""
    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Passed through to ``litellm.acompletion`` (e.g. ``{"top_p": 1}``)."""

    @model_validator(mode="after")
    def _check(self) -> SoftOptions:
        if self.replay_only and not self.cache_path:
            raise ValueError("replay_only needs cache_path (there is nothing to replay from)")
        if self.retry_max_delay < self.retry_base_delay:
            raise ValueError("retry_max_delay must be >= retry_base_delay")
        if self.soft_checkers:
            from .checkers import CHECKERS

            for tool, names in self.soft_checkers.items():
                if not names:
                    raise ValueError(
                        f"soft_checkers[{tool!r}] is empty: a tool with LLM-judged arguments needs at least one soft checker"
                    )
                for n in names:
                    if n not in CHECKERS:
                        raise ValueError(
                            f"soft_checkers[{tool!r}]: unknown soft checker {n!r}; known: {', '.join(CHECKERS)}"
                        )
        return self


def parse_options(data: dict[str, Any] | None, *, source: str = "llm_options") -> SoftOptions:
    try:
        return SoftOptions.model_validate(dict(data or {}))
    except ValidationError as exc:
        raise InputError(f"invalid {source}: {format_validation_error(exc)}", field=source) from None


@dataclass(frozen=True)
class ModelSettings:
    """Which model to ask, and where."""

    model: str
    provider: str
    endpoint: str | None
    api_key: str | None

    @property
    def litellm_model(self) -> str:
        """``provider/model`` as litellm expects (unless the model already names the provider)."""
        if not self.provider or self.model.startswith(self.provider + "/"):
            return self.model
        return f"{self.provider}/{self.model}"

    @property
    def label(self) -> str:
        """Identifies the judge in cache keys (the endpoint is not part of it)."""
        return self.litellm_model


def resolve_model(
    *, model: str | None, provider: str | None, endpoint: str | None, options: SoftOptions
) -> ModelSettings:
    """Config fields first, then the ``ARE_JUDGE_*`` environment variables, then ARE's defaults."""
    m = model or os.environ.get(ENV_MODEL) or DEFAULT_JUDGE_MODEL
    p = provider or os.environ.get(ENV_PROVIDER) or DEFAULT_JUDGE_PROVIDER
    e = endpoint or os.environ.get(ENV_ENDPOINT) or None
    key = options.api_key or os.environ.get(ENV_API_KEY) or None
    if key is None and e and p == "openai" and not os.environ.get("OPENAI_API_KEY"):
        key = "no-key"  # a local OpenAI-compatible server usually needs none, but the client insists
    return ModelSettings(model=m, provider=p, endpoint=e, api_key=key)
