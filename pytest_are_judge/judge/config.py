"""Judge configuration, with ARE's names so ARE-style code works with only the import changed."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..checkers import CheckerType
from ..errors import InputError, format_validation_error
from ..model import Count, Seconds


class ToolCheckerParam(BaseModel):
    """A per-event argument check (ARE's ``ToolCheckerParam``).

    ``tool_name`` may be omitted: it then applies to whatever tool the oracle event calls.
    ARE silently ignores a param whose ``tool_name`` differs from the oracle event's tool; we
    report it as an input error instead.
    """

    model_config = ConfigDict(extra="forbid")

    arg_name: str
    checker_type: str
    tool_name: str | None = None
    checker_args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("checker_type", mode="before")
    @classmethod
    def _enum_to_str(cls, v: Any) -> Any:
        return v.value if isinstance(v, CheckerType) else v


class GraphPerEventJudgeConfig(BaseModel):
    """Settings of the graph (per-event) judge.  Defaults are ARE 1.2.0's code defaults."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    check_time_threshold_seconds: Seconds = 1.0
    pre_event_tolerance_seconds: Seconds = 10.0
    post_event_tolerance_seconds: Seconds = 25.0
    extra_send_message_to_user_allowed: Count = 1
    per_tool_arg_to_checker_type: dict[str, dict[str, str]] | None = None
    """Extra or replacement per-tool entries, merged over ARE's default registry per tool."""
    event_id_to_checker_params: dict[str, list[ToolCheckerParam]] | None = None
    """Per oracle-event checks.  As in ARE, any non-None value turns LLM judging off."""
    matching: Literal["greedy", "exact"] = "greedy"
    """greedy = ARE's first-fit; exact = search any assignment satisfying every rule."""
    soft_fallback: Literal["ignore", "equal"] = "ignore"
    """Without an LLM: ignore LLM-judged args (ARE's scripted judge) or require them equal."""
    unregistered_tool: Literal["error", "eq"] = "error"
    """An oracle tool with no registry entry: an input error (ARE raises) or eq on all its args."""
    candidate_scope: Literal["all_turns", "current_turn"] = "all_turns"
    """ARE matches agent events of all turns so far; ``current_turn`` restricts to the turn."""
    exact_search_budget: Annotated[int, Field(strict=True, ge=1)] = 200_000
    checker_errors: Literal["fail", "reject"] = "fail"
    """A checker that raises on a candidate (or an argument missing from the agent's call):
    ``fail`` the judgment as ARE does (rationale 'Exception'), or ``reject`` that candidate and
    try the others (never ARE's verdict when another candidate matches)."""
    phone_match: Literal["digits", "e164"] = "digits"
    """phone_number_checker: equal digits (ARE), or also the same E.164 number (phonenumbers)."""
    # --- LLM judging (soft checks); used only when ``llm`` is true -------------------------
    llm: bool = False
    judge_model: str | None = None
    judge_provider: str | None = None
    judge_endpoint: str | None = None
    judge_votes: Annotated[int, Field(strict=True, ge=1)] = 1
    llm_options: dict[str, Any] = Field(default_factory=dict)
    """Further soft-judging options (cache path, concurrency, retries...), see docs."""
    evaluators: list[dict[str, Any]] = Field(default_factory=list)
    """Scenario-level evaluators (e.g. code judges) run after matching."""

    @field_validator("per_tool_arg_to_checker_type", mode="before")
    @classmethod
    def _registry_enums(cls, v: Any) -> Any:
        if isinstance(v, dict):
            out = {}
            for tool, args in v.items():
                if not isinstance(args, dict):
                    # a bare string or null would silently check nothing for this tool
                    raise ValueError(
                        f"{tool}: expected a mapping of argument name to checker name, got {type(args).__name__}"
                    )
                out[tool] = {a: (c.value if isinstance(c, CheckerType) else c) for a, c in args.items()}
            return out
        return v

    @property
    def scripted(self) -> bool:
        return self.event_id_to_checker_params is not None

    def merged(self, **overrides: Any) -> GraphPerEventJudgeConfig:
        """A copy with ``overrides`` applied (validated)."""
        data = self.model_dump()
        data.update(overrides)
        return type(self).model_validate(data)


class ScriptedGraphPerEventJudgeConfig(GraphPerEventJudgeConfig):
    """Graph judge with per-event checker params and no LLM (ARE's scripted judge)."""

    event_id_to_checker_params: dict[str, list[ToolCheckerParam]] | None = Field(default_factory=dict)

    @model_validator(mode="after")
    def _not_none(self) -> ScriptedGraphPerEventJudgeConfig:
        if self.event_id_to_checker_params is None:
            raise ValueError("event_id_to_checker_params must not be None for a scripted judge")
        return self


class InContextJudgeConfig(BaseModel):
    """Settings of the whole-trace LLM judge."""

    model_config = ConfigDict(extra="forbid")

    check_time_threshold_seconds: Seconds = 1.0
    pre_event_tolerance_seconds: Seconds = 10.0
    post_event_tolerance_seconds: Seconds = 25.0
    judge_model: str | None = None
    judge_provider: str | None = None
    judge_endpoint: str | None = None
    judge_votes: Annotated[int, Field(strict=True, ge=1)] = 1
    llm_options: dict[str, Any] = Field(default_factory=dict)


AnyJudgeConfig = GraphPerEventJudgeConfig | ScriptedGraphPerEventJudgeConfig | InContextJudgeConfig


def config_from_mapping(
    data: dict[str, Any], *, source: str | None = None, base: GraphPerEventJudgeConfig | None = None
) -> GraphPerEventJudgeConfig:
    """Validate ``data`` (merged over ``base``) into a config; errors name the source and field."""
    if not isinstance(data, dict):
        raise InputError(f"a judge config must be a mapping, got {type(data).__name__}", file=source)
    merged = base.model_dump(exclude_unset=True) if base is not None else {}
    merged.update(data)
    cls: type[GraphPerEventJudgeConfig] = type(base) if base is not None else GraphPerEventJudgeConfig
    if merged.get("event_id_to_checker_params") is not None and cls is GraphPerEventJudgeConfig:
        cls = ScriptedGraphPerEventJudgeConfig
    try:
        return cls.model_validate(merged)
    except ValidationError as exc:
        raise InputError(f"invalid judge config: {format_validation_error(exc)}", file=source) from None
