"""``InContextJudge``: whole-trace LLM evaluation, one model verdict per turn.

Differences from ARE (docs/llm.md, differences from ARE): parent ids are real, the task, earlier
tasks and user sections are filled in, tool criteria are given once per distinct criterion
and only for tools that appear in the turn, the verdict parse is strict, case-insensitive
and takes the final verdict, and failures carry the model's reasoning.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .._text import visible
from ..judgment.failures import FailureKind, GenericFailure, InputErrorFailure
from ..judgment.result import Judgment
from ..model import AUI_SEND_TO_USER, Event, EventType, Run, Scenario
from ..soft.engine import run_sync
from ..soft.guard import suspected_argument
from ..soft.judge import CheckerResult, SoftToolJudge
from ..soft.prompts import chat, escape, prompt_text, render, sections
from .config import InContextJudgeConfig
from .events import judged_events, split_turns

_CRITERIA_BY_FUNCTION = {
    "add_calendar_event": "calendar_add",
    "send_email": "email_send",
    "reply_to_email": "email_reply",
    "send_message": "message_send",
    "send_message_to_group_conversation": "message_send",
    "order_ride": "cab_order",
    "create_conversation": "conversation_title",
    "create_group_conversation": "conversation_title",
    "change_conversation_title": "conversation_title",
}


def criteria_category(tool_name: str) -> str | None:
    if tool_name == AUI_SEND_TO_USER:
        return "user_message"
    from ..checkers import load_criteria_tools

    if tool_name not in set(load_criteria_tools()):
        return None
    return _CRITERIA_BY_FUNCTION.get(tool_name.split("__", 1)[-1])


def tool_criteria(tool_names: list[str]) -> str:
    """One block per distinct criterion, naming the tools of this turn it applies to."""
    texts = sections("in_context_criteria")
    groups: dict[str, list[str]] = {}
    for t in tool_names:
        cat = criteria_category(t)
        if cat is not None and t not in groups.setdefault(cat, []):
            groups[cat].append(t)
    blocks = [f"{', '.join(tools)}:\n{texts[cat].strip()}" for cat, tools in groups.items()]
    return "\n\n".join(blocks) if blocks else "(no tool-specific criteria for the tools of this turn)"


class InContextJudge:
    """Judge a run by showing the model the agent's and the oracle's actions, turn by turn."""

    def __init__(
        self,
        config: InContextJudgeConfig | None = None,
        *,
        tool_registry: dict[str, dict[str, Any]] | None = None,
        soft: SoftToolJudge | None = None,
    ) -> None:
        self.config = config or InContextJudgeConfig()
        self.soft = soft or SoftToolJudge.from_config(self.config)
        self._tool_registry = tool_registry

    # ----------------------------------------------------------------- input
    @property
    def tool_registry(self) -> dict[str, dict[str, Any]]:
        if self._tool_registry is None:
            from ..checkers import load_tool_registry

            self._tool_registry = load_tool_registry()
        return self._tool_registry

    def _args(self, tool: str, args: dict[str, Any]) -> list[str]:
        entry = self.tool_registry.get(tool)
        names = [a for a in args if a != "self" and (entry is None or a in entry)]
        return [f"  {a}: {escape(args[a])}" for a in names]

    def describe(self, ev: Any, start: float, *, ident: str | None = None, parents: list[str] | None = None) -> str:
        lines = []
        if ident is not None:
            lines.append(f"Tool call id: {escape(ident)}")
            lines.append(f"Parent tool call ids: {', '.join(escape(p) for p in parents) if parents else '(none)'}")
        lines.append(f"Tool name: {escape(ev.tool_name)}")
        lines.append(f"Tool call time: {ev.event_time - start:.1f} s after the scenario start")
        args = self._args(ev.tool_name, ev.args)
        lines.append("Arguments:" if args else "Arguments: (none)")
        lines.extend(args)
        return "\n".join(lines)

    def messages_for_turn(self, scenario: Scenario, plan: Any, k: int, agent_turn: list[Event]) -> list[dict[str, str]]:
        cfg = self.config
        steps = [s for s in plan.turns[k] if s.event_type == EventType.AGENT]
        agent_ids = {s.event_id for s in steps}
        start = scenario.start_time
        agent_events = [e for e in agent_turn if e.event_type == EventType.AGENT]
        oracle_text = "\n\n".join(
            self.describe(s, start, ident=s.event_id, parents=[p for p in s.parents if p in agent_ids]) for s in steps
        )
        agent_text = "\n\n".join(self.describe(e, start) for e in agent_events)
        tools = [s.tool_name for s in steps] + [e.tool_name for e in agent_events]
        system = render(
            prompt_text("in_context_system"),
            time_threshold=f"{cfg.check_time_threshold_seconds:g}",
            pre_tolerance=f"{cfg.pre_event_tolerance_seconds:g}",
            post_tolerance=f"{cfg.post_event_tolerance_seconds:g}",
            tool_criteria=tool_criteria(tools),
        )
        tasks = [t.strip() for t in plan.tasks[: k + 1]]
        user = render(
            prompt_text("in_context_user"),
            user_name=escape(scenario.user.full_name.strip()) if scenario.user else "(unknown)",
            task=escape(tasks[-1]) if tasks and tasks[-1] else "(none)",
            previous_task=escape("\n".join(t for t in tasks[:-1] if t)) or "(none)",
            agent_actions=agent_text or "(no actions)",
            oracle_actions=oracle_text or "(no actions)",
        )
        return chat(system, user, structured=self.soft.options.structured)

    # ----------------------------------------------------------------- judge
    def judge_run(self, run: Run) -> Judgment:
        return run_sync(lambda: self.ajudge_run(run))

    def __call__(self, run: Run) -> Judgment:
        return self.judge_run(run)

    async def ajudge_run(self, run: Run) -> Judgment:
        from ..errors import InputError
        from .engine import GraphPerEventJudge

        base: dict[str, Any] = dict(
            scenario_id=run.scenario.scenario_id,
            run_id=run.run_id,
            source=run.source or run.scenario.source,
            matching="in_context",
        )
        try:
            plan = GraphPerEventJudge().plan(run.scenario)
        except InputError as exc:
            return Judgment(success=False, failure=InputErrorFailure.from_error(exc), **base)
        turns = split_turns(judged_events(list(run.events)))

        async def judge_turn(k: int) -> CheckerResult:
            agent_turn = turns[k] if k < len(turns) else []
            for ev in agent_turn if self.soft.options.injection_guard else ():
                suspect = suspected_argument(ev.args) if ev.event_type == EventType.AGENT else None
                if suspect is not None:  # never passed by an LLM, not even sent to one
                    return CheckerResult(
                        "in_context",
                        False,
                        f"suspected prompt injection in {visible(ev.event_id)} {suspect}; not sent to the LLM",
                    )
            return await self.soft.decide("in_context", self.messages_for_turn(run.scenario, plan, k, agent_turn))

        results: list[CheckerResult] = await asyncio.gather(*(judge_turn(k) for k in range(plan.nb_turns)))
        extras = {
            "in_context": [
                {"turn": k, "passed": r.passed, "rationale": r.rationale, "error": r.error}
                for k, r in enumerate(results)
            ]
        }
        for k, r in enumerate(results):
            failure = None
            if r.error is not None:
                failure = GenericFailure(
                    FailureKind.JUDGE_UNAVAILABLE,
                    f"in-context LLM judge unavailable for turn {k}: {r.error}",
                    {"turn": k},
                )
            elif r.passed is None:
                if self.soft.options.inconclusive_policy == "reject":
                    failure = GenericFailure(
                        FailureKind.INCONTEXT_REJECT,
                        f"in-context judge inconclusive for turn {k}, counted as a rejection: {r.rationale}",
                        {"turn": k},
                    )
                else:
                    failure = GenericFailure(
                        FailureKind.INCONCLUSIVE,
                        f"in-context judge inconclusive for turn {k}: {r.rationale}",
                        {"turn": k},
                    )
            elif r.passed is False:
                failure = GenericFailure(
                    FailureKind.INCONTEXT_REJECT,
                    f"the in-context judge rejected turn {k}: {r.rationale}",
                    {"turn": k, "rationale": r.rationale},
                )
            if failure is not None:
                return Judgment(
                    success=False, failure=failure, nb_turns=plan.nb_turns, turns_judged=k + 1, extras=extras, **base
                )
        return Judgment(
            success=True, failure=None, nb_turns=plan.nb_turns, turns_judged=plan.nb_turns, extras=extras, **base
        )
