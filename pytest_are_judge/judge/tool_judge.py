"""Argument checks of one (agent event, oracle event) pair: registry hard checks, per-event
(scripted) checks, then the soft stage (LLM, or a no-LLM policy)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..checkers import CheckerInputError, CheckerType, get_checker, normalize_arg
from ..checkers._registry import resolve_checker
from ..errors import CheckerRaised, InputError, JudgeUnavailableError
from ..judgment.failures import ArgCheck
from .config import GraphPerEventJudgeConfig, ToolCheckerParam

LLM = CheckerType.llm_checker.value
_EQ = CheckerType.eq_checker.value
_ATTENDEES = CheckerType.list_attendees_checker.value
_PHONE = CheckerType.phone_number_checker.value
_NO_ARGS: Mapping[str, Any] = MappingProxyType({})


@dataclass(eq=False)
class ArgVerdict:
    passed: bool
    rows: list[ArgCheck] = field(default_factory=list)
    reason: str = "arguments"  # or "checker_error"
    soft_args: list[str] = field(default_factory=list)


class ToolJudge:
    """Built once per judge; holds the merged registry and per-event params."""

    def __init__(self, config: GraphPerEventJudgeConfig, tool_registry: dict[str, dict[str, str]]) -> None:
        registry = {k: dict(v) for k, v in tool_registry.items()}
        for tool, entry in (config.per_tool_arg_to_checker_type or {}).items():
            registry[tool] = dict(entry)
        for tool, entry in registry.items():
            for arg, ctype in entry.items():
                self._validate_checker(ctype, where=f"per_tool_arg_to_checker_type.{tool}.{arg}")
        self.registry = registry
        self.config = config
        self.params: dict[str, list[ToolCheckerParam]] = dict(config.event_id_to_checker_params or {})
        for eid, plist in self.params.items():
            for p in plist:
                self._validate_checker(p.checker_type, where=f"event_id_to_checker_params.{eid}.{p.arg_name}")

    @staticmethod
    def _validate_checker(ctype: str, *, where: str) -> None:
        if ctype == LLM:
            return
        try:
            get_checker(ctype)
        except KeyError as exc:
            raise InputError(str(exc.args[0]) if exc.args else f"unknown checker {ctype!r}", field=where) from None

    def entry_for(self, tool_name: str, *, event_id: str, source: str | None) -> dict[str, str] | None:
        entry = self.registry.get(tool_name)
        if entry is None and self.config.unregistered_tool == "error":
            raise InputError(
                f"tool {tool_name!r} is not in the checker registry (ARE: 'not supported'); add it to "
                "per_tool_arg_to_checker_type or set unregistered_tool='eq' to compare every oracle argument with eq_checker",
                file=source,
                event_id=event_id,
                field="action",
            )
        return entry

    def params_for(
        self, event_id: str, tool_name: str, extra: list[Any], *, source: str | None
    ) -> list[ToolCheckerParam]:
        out: list[ToolCheckerParam] = []
        for p in [*self.params.get(event_id, []), *extra]:
            if not isinstance(p, ToolCheckerParam):
                p = ToolCheckerParam.model_validate(p.model_dump() if hasattr(p, "model_dump") else p)
            try:
                self._validate_checker(p.checker_type, where=f"checks.{p.arg_name}")
                if p.checker_type == CheckerType.code_judge.value:
                    from ..code_judge import check_options

                    check_options(p.checker_args, where=f"checks.{p.arg_name}.args")
            except InputError as exc:
                raise InputError(exc.message, file=source, event_id=event_id, field=exc.field) from None
            if p.tool_name is not None and p.tool_name != tool_name:
                raise InputError(
                    f"checker param for argument {p.arg_name!r} names tool {p.tool_name!r} but the oracle event calls "
                    f"{tool_name!r} (ARE would silently ignore it)",
                    file=source,
                    event_id=event_id,
                    field="event_id_to_checker_params",
                )
            out.append(p)
        return out

    def check_args(
        self,
        *,
        entry: dict[str, str] | None,
        params: list[ToolCheckerParam],
        agent_args: dict[str, Any],
        oracle_args: dict[str, Any],
        tolerance: list[str],
        full: bool,
        context: Callable[[], dict[str, Any]] | dict[str, Any] | None = None,
    ) -> ArgVerdict:
        """Registry checks in order, then per-event params.  With ``full=False`` stop at the first
        failing argument (ARE's order); ``full=True`` computes every row for reports.
        ``context`` (what context-aware checkers receive) may be a function building it: it is
        then built only when such a checker runs."""
        verdict = ArgVerdict(passed=True)
        if entry is None:  # unregistered tool with unregistered_tool="eq"
            entry = {k: _EQ for k in oracle_args}
        checks: list[tuple[str, str, Mapping[str, Any], bool]] = [(a, c, _NO_ARGS, False) for a, c in entry.items()]
        if params:
            checks += [(p.arg_name, p.checker_type, dict(p.checker_args), True) for p in params]
        for arg, ctype, cargs, from_param in checks:
            if ctype == LLM:
                if arg not in verdict.soft_args:
                    verdict.soft_args.append(arg)
                continue
            row = self._one(arg, ctype, cargs, from_param, agent_args, oracle_args, tolerance, context)
            if row is not None and row.raised and not full and self.config.checker_errors == "fail":
                # ARE lets the checker's exception escape: the whole judgment fails there
                raise CheckerRaised(oracle_event_id="", agent_event_id="", checker=ctype, arg=arg, error=row.note)
            if row is None:
                continue
            verdict.rows.append(row)
            if not row.passed:
                verdict.passed = False
                if row.note.startswith("cannot compare"):
                    verdict.reason = "checker_error"
                if not full:
                    return verdict
        return verdict

    def _one(
        self,
        arg: str,
        ctype: str,
        cargs: Mapping[str, Any],
        from_param: bool,
        agent_args: dict[str, Any],
        oracle_args: dict[str, Any],
        tolerance: list[str],
        context: Callable[[], dict[str, Any]] | dict[str, Any] | None = None,
    ) -> ArgCheck | None:
        func, kind = resolve_checker(ctype)
        expected = cargs.get("targets") if kind == "scripted" else oracle_args.get(arg)
        if kind != "scripted" and arg not in oracle_args:
            if from_param:
                return ArgCheck(arg, ctype, None, agent_args.get(arg), False, "the oracle event has no such argument")
            return None  # an argument the oracle does not state is not checked
        if arg not in agent_args:
            return ArgCheck(arg, ctype, expected, None, False, "missing from the agent's call", raised=True)
        actual = agent_args[arg]
        try:
            if kind == "scripted":
                res = func(actual, **cargs)
            else:
                kwargs = dict(cargs)
                if ctype == _ATTENDEES and "tolerance_list_str" not in kwargs and not from_param:
                    kwargs["tolerance_list_str"] = tolerance
                if ctype == _PHONE and "match" not in kwargs:
                    kwargs["match"] = self.config.phone_match
                if getattr(func, "wants_context", False):
                    ctx = context() if callable(context) else context
                    kwargs["context"] = {**(ctx or {}), "arg_name": arg}
                res = func(actual, expected, **kwargs)
            if res is True or res is False:
                ok, note = res, ""
            else:
                ok = bool(res)
                note = str(getattr(res, "note", "") or "")
        except CheckerInputError as exc:
            return ArgCheck(arg, ctype, expected, actual, False, f"cannot compare: {exc}", raised=True)
        except (JudgeUnavailableError, InputError):
            raise  # an external judge that cannot decide, or bad options: an error, never a verdict
        except Exception as exc:
            return ArgCheck(
                arg,
                ctype,
                expected,
                actual,
                False,
                f"cannot compare: checker raised {type(exc).__name__}: {exc}",
                raised=True,
            )
        return ArgCheck(arg, ctype, expected, actual, ok, note)

    @staticmethod
    def soft_selected(soft_args: list[str], oracle_args: dict[str, Any]) -> list[str]:
        """LLM-judged args whose oracle value is truthy (ARE's selection)."""
        return [a for a in soft_args if oracle_args.get(a)]

    @staticmethod
    def soft_equal(args: list[str], agent_args: dict[str, Any], oracle_args: dict[str, Any]) -> list[ArgCheck]:
        """ARE's equality pre-check (``normalize_arg``) as report rows."""
        rows = []
        for a in args:
            if a not in agent_args:
                rows.append(
                    ArgCheck(a, "llm_checker (equal)", oracle_args[a], None, False, "missing from the agent's call")
                )
                continue
            ok = normalize_arg(agent_args[a]) == normalize_arg(oracle_args[a])
            rows.append(ArgCheck(a, "llm_checker (equal)", oracle_args[a], agent_args[a], ok))
        return rows
